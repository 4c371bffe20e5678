"""The REST endpoints: thin views that validate shapes, call services for writes and selectors for reads."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import urlencode

from django.contrib.auth import authenticate
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.http import content_disposition_header
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import generics, mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import AuthenticationFailed, Throttled
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import SAFE_METHODS, AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer
from rest_framework.views import APIView

from games.sandbox.upload import MAX_PY_BYTES, MAX_ZIP_BYTES
from tournaments.play import selectors, services
from tournaments.site import page_cache, token_lists
from tournaments.site.api import body_limits
from tournaments.site.api import serializers as s
from tournaments.site.api.file_names import record_sent_names
from tournaments.site.api.pagination import MatchPages
from tournaments.site.api.parsers import BoundedJSONParser
from tournaments.site.api.permissions import Authenticated, ReadOrAuthenticated
from tournaments.site.api.schema import ErrorSerializer
from tournaments.site.api.throttles import (
    ChallengeThrottle,
    ChargedOnSuccess,
    LoginThrottle,
    SignupThrottle,
    UploadThrottle,
    VisibilityThrottle,
)

# Models name types here only: reads go through selectors, writes through services.
if TYPE_CHECKING:
    from django.db.models import QuerySet

    from tournaments.play.models import Bot, BotLog, BotVersion, Match

MAX_UPLOAD_REQUEST_BYTES = s.MAX_UPLOAD_BYTES + 64 * 1024
"""An upload request's body: the largest file plus room for its multipart framing and fields."""

# Accounts


class AccountCreateView(ChargedOnSuccess, APIView):
    permission_classes = [AllowAny]
    throttle_classes = [SignupThrottle]

    @extend_schema(
        request=s.AccountCreateSerializer,
        responses={201: s.AccountWithTokenSerializer},
        summary="Create an account and get its API token",
    )
    def post(self, request: Request) -> Response:
        data = s.AccountCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        # The address the sign-up limit counts by: its accounts share one turn at the workers.
        address = SignupThrottle().get_ident(request)
        user, token = services.create_account(**data.validated_data, address=address)
        body = s.AccountWithTokenSerializer(user).data
        return Response({**body, "token": token}, status=status.HTTP_201_CREATED)


class TokenView(APIView):
    permission_classes = [AllowAny]
    throttle_classes = [LoginThrottle]

    @extend_schema(
        request=s.TokenRequestSerializer,
        responses={200: s.TokenSerializer},
        summary="Exchange a username and password for the API token",
    )
    def post(self, request: Request) -> Response:
        data = s.TokenRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(
            request._request,
            username=data.validated_data["username"],
            password=data.validated_data["password"],
        )
        if user is None or not user.is_active:
            raise AuthenticationFailed("wrong username or password")
        return Response({"token": services.token_for(user=user)})


class MeView(APIView):
    permission_classes = [Authenticated]

    @extend_schema(responses={200: s.AccountSerializer}, summary="The logged-in account")
    def get(self, request: Request) -> Response:
        return Response(s.AccountSerializer(request.user).data)


# Bots


@extend_schema_view(
    list=extend_schema(
        summary="Bots: your own, and everyone's public active ones",
        parameters=[s.BotFilterSerializer],
    ),
    create=extend_schema(
        request=s.BotCreateSerializer,
        responses={201: s.BotSerializer},
        summary="Create a bot for one game",
    ),
    retrieve=extend_schema(summary="One bot"),
    update=extend_schema(summary="Change your bot's name, description or visibility"),
    partial_update=extend_schema(summary="Change some of your bot's fields"),
    destroy=extend_schema(summary="Deactivate your bot (its versions and matches stay)"),
)
class BotViewSet(
    ChargedOnSuccess,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet["Bot"],
):
    serializer_class = s.BotSerializer
    permission_classes = [ReadOrAuthenticated]
    throttle_classes = [VisibilityThrottle]

    def changes_visibility(self, request: Request) -> bool:
        """Whether this request would change what the cached pages show of the bot (its name,
        visibility or state), which retires every one of them: ``VisibilityThrottle`` counts it.
        A body that will be refused changes nothing."""
        if self.action in ("update", "partial_update"):
            bot = self.get_object()
            body = self.get_serializer(
                bot, data=request.data, partial=self.action == "partial_update"
            )
            if not body.is_valid():
                return False
            return page_cache.changes_shown(bot, body.validated_data)
        if self.action in ("destroy", "deactivate"):
            return bool(self.get_object().is_active)
        return False

    def throttled(self, request: Request, wait: float | None) -> NoReturn:
        raise Throttled(
            wait,
            detail="Too many changes of your bots' names, visibility or state (each one"
            " retires every cached page).",
        )

    def get_serializer_class(self) -> type[BaseSerializer[Bot]]:
        return s.BotCreateSerializer if self.action == "create" else s.BotSerializer

    def get_queryset(self) -> QuerySet[Bot]:
        # Writes only ever find your own bots: another user's answers 404, as if absent.
        game = None
        if self.action == "list":  # an unknown game is a 400, as on every other list
            filters = s.BotFilterSerializer(data=self.request.query_params)
            filters.is_valid(raise_exception=True)
            game = filters.validated_data.get("game")
        return selectors.bots_listed(
            self.request.user, writable=self.request.method not in SAFE_METHODS, game=game
        )

    def perform_create(self, serializer: BaseSerializer[Bot]) -> None:
        v = serializer.validated_data  # defaults filled in (BotCreateSerializer)
        serializer.instance = services.create_bot(
            owner=self.request.user,
            game=v["game"],
            name=v["name"],
            description=v["description"],
            is_public=v["is_public"],
        )

    def perform_update(self, serializer: BaseSerializer[Bot]) -> None:
        assert serializer.instance is not None
        serializer.instance = services.update_bot(
            bot=serializer.instance, **serializer.validated_data
        )

    def perform_destroy(self, instance: Bot) -> None:
        services.deactivate_bot(bot=instance)

    @extend_schema(request=None, responses={200: s.BotSerializer}, summary="Deactivate your bot")
    @action(detail=True, methods=["post"])
    def deactivate(self, request: Request, pk: str | None = None) -> Response:
        bot = services.deactivate_bot(bot=self.get_object())
        return Response(s.BotSerializer(bot).data)

    @extend_schema(
        request=s.BotActivateSerializer,
        responses={200: s.BotSerializer},
        summary="Choose the ready version of your bot that ladders play",
        description="The newest ready version clears the choice: ladders then follow each new"
        " ready version again. Another user's bot is a 404.",
    )
    @action(detail=True, methods=["post"])
    def activate(self, request: Request, pk: str | None = None) -> Response:
        bot = self.get_object()  # writable: another user's bot is a 404
        body = s.BotActivateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        bot = services.activate_version(bot=bot, number=body.validated_data["number"])
        return Response(self.get_serializer(bot).data)


class BotVersionListView(ChargedOnSuccess, generics.ListCreateAPIView["BotVersion"]):
    """A bot's versions, newest first; POST uploads the next one (the bot's owner only)."""

    serializer_class = s.BotVersionSerializer
    permission_classes = [ReadOrAuthenticated]
    # A file as multipart, or source text as JSON (no form-urlencoded: a file cannot be sent so).
    parser_classes = [BoundedJSONParser, MultiPartParser]
    throttle_classes = [UploadThrottle]

    def get_queryset(self) -> QuerySet[BotVersion]:
        versions = selectors.versions_of(self.request.user, self.kwargs["bot_id"])
        if versions is None:
            raise Http404("no such bot")
        return versions

    @extend_schema(
        request={
            "multipart/form-data": s.VersionFileUploadSerializer,
            "application/json": s.VersionSourceUploadSerializer,
        },
        responses={
            201: s.BotVersionSerializer,
            200: OpenApiResponse(
                s.BotVersionSerializer,
                description="The same file as the bot's newest version (not rejected): that "
                "version, unchanged; no new version is made.",
            ),
            413: OpenApiResponse(
                ErrorSerializer,
                description="The request body is larger than an upload may be (refused unread).",
            ),
        },
        summary="Upload the bot's next version (validated in the background)",
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        length = body_limits.content_length(request)
        if length > MAX_UPLOAD_REQUEST_BYTES:  # refused unread, before request.data parses it
            what = f"an upload ({MAX_PY_BYTES} bytes for a .py, {MAX_ZIP_BYTES} for a .zip)"
            detail = body_limits.too_large(length, MAX_UPLOAD_REQUEST_BYTES, what)
            return Response({"detail": detail}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
        bot = get_object_or_404(selectors.bots_owned_by(request.user), pk=kwargs["bot_id"])
        if not bot.is_active:
            raise Http404("this bot is deactivated")
        sent = record_sent_names(request)
        data = s.VersionUploadSerializer(data=request.data, context={"sent_names": sent})
        data.is_valid(raise_exception=True)
        version, created = services.upload_version(bot=bot, **data.validated_data)
        body = s.BotVersionSerializer(version, context=self.get_serializer_context()).data
        return Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class BotVersionDetailView(generics.RetrieveAPIView["BotVersion"]):
    serializer_class = s.BotVersionSerializer
    permission_classes = [ReadOrAuthenticated]

    def get_object(self) -> BotVersion:
        return get_object_or_404(
            selectors.versions_visible_to(self.request.user),
            bot_id=self.kwargs["bot_id"],
            number=self.kwargs["number"],
        )


class BotVersionSourceView(APIView):
    permission_classes = [ReadOrAuthenticated]

    @extend_schema(
        responses={(200, "application/octet-stream"): OpenApiTypes.BINARY},
        summary="The uploaded file, byte for byte (the bot's owner and staff only)",
    )
    def get(self, request: Request, bot_id: int, number: int) -> HttpResponse:
        version = get_object_or_404(
            selectors.versions_visible_to(request.user), bot_id=bot_id, number=number
        )
        if not selectors.can_read_source(request.user, version.bot):
            raise Http404("no such bot version")
        response = HttpResponse(bytes(version.upload), content_type="application/octet-stream")
        # Django's helper quotes and escapes the name, or percent-encodes it (RFC 6266) when it
        # is not plain ASCII: names stored before upload checked them may hold anything.
        response["Content-Disposition"] = content_disposition_header(True, version.filename)
        response["X-Content-Type-Options"] = "nosniff"
        return response


# Matches


class MatchListView(ChargedOnSuccess, generics.ListCreateAPIView["Match"]):
    serializer_class = s.MatchSerializer
    pagination_class = MatchPages
    permission_classes = [ReadOrAuthenticated]
    throttle_classes = [ChallengeThrottle]

    def get_queryset(self) -> QuerySet[Match]:
        filters = s.MatchFilterSerializer(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        self.filters = filters.validated_data
        return selectors.matches(user=self.request.user, **filters.validated_data)

    listed: list[Any] | None = None
    filters: dict[str, Any] | None = None

    def paginate_queryset(self, queryset: Any) -> list[Any] | None:
        self.listed = super().paginate_queryset(queryset)
        return self.listed

    @extend_schema(parameters=[s.MatchFilterSerializer], summary="Matches, newest first")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        response = super().get(request, *args, **kwargs)
        pages = self.paginator
        if self.listed is not None and isinstance(pages, MatchPages):
            # Who sees this page differently, for the token callers it may be shared with.
            game = (self.filters or {}).get("game")
            listed = token_lists.matches_listed(self.listed, pages.page.older is not None, game)
            setattr(response, page_cache.LISTED, listed)
        return response

    @extend_schema(
        request=s.ChallengeSerializer,
        responses={201: s.MatchSerializer},
        summary="Challenge: an unrated match between chosen bot versions and built-ins",
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = s.ChallengeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        match = services.create_challenge(
            user=request.user,
            game=v["game"],
            seats=[dict(seat) for seat in v["seats"]],
            options=v["options"],
            seed=v.get("seed"),
            human_move_seconds=v.get("human_move_seconds"),
        )
        # The match as just made, its seats read as the lists read them: its creator sees it and
        # a challenge deals no duplicate deal, so reading it back through match_detail rebuilt the
        # visibility and deal subqueries for nothing (a third of a challenge's CPU).
        selectors.with_seats([match])
        body = s.MatchSerializer(match, context=self.get_serializer_context()).data
        return Response(body, status=status.HTTP_201_CREATED)


class MatchDetailView(generics.RetrieveAPIView["Match"]):
    serializer_class = s.MatchSerializer
    permission_classes = [ReadOrAuthenticated]
    lookup_url_kwarg = "match_id"

    def get_queryset(self) -> QuerySet[Match]:
        return selectors.matches(user=self.request.user)


class MatchEventsView(APIView):
    permission_classes = [ReadOrAuthenticated]

    @extend_schema(
        parameters=[s.EventsQuerySerializer],
        responses={200: s.MatchDocumentPageSerializer},
        summary="The match document (backroom-match/1), a page at a time, as you may see it",
    )
    def get(self, request: Request, match_id: str) -> Response:
        match = get_object_or_404(selectors.match_detail(match_id, request.user))
        query = s.EventsQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        q = query.validated_data
        try:
            page, more = selectors.match_document_page(
                user=request.user,
                match=match,
                seat=q.get("seat"),
                after=q["after"],
                limit=q["limit"],
            )
        except selectors.NoSuchView as exc:
            raise Http404(str(exc)) from None
        page["next"] = None
        if more:
            params = {**request.query_params.dict(), "after": page["events"][-1]["version"]}
            page["next"] = request.build_absolute_uri(f"{request.path}?{urlencode(params)}")
        return Response(page)


class MatchLogsView(generics.ListAPIView["BotLog"]):
    """Your bots' logs in this match (staff: every seat's, once it is over)."""

    serializer_class = s.BotLogSerializer
    permission_classes = [Authenticated]

    def get_queryset(self) -> QuerySet[BotLog]:
        match = get_object_or_404(
            selectors.match_detail(self.kwargs["match_id"], self.request.user)
        )
        return selectors.logs_for(self.request.user, match)


class MatchActionsView(APIView):
    """A person's seat: what it is asked (GET), and its action (POST); tournaments/play/lifecycle/people.py."""

    permission_classes = [Authenticated]

    @extend_schema(
        responses={200: s.DecisionSerializer(many=True)},
        summary="Your seats in this match: whether it waits for them, their observation and legal actions",
    )
    def get(self, request: Request, match_id: str) -> Response:
        try:
            found = selectors.person_decisions(request.user, match_id)
        except selectors.NotFound as exc:
            raise Http404(str(exc)) from None
        return Response(s.DecisionSerializer([vars(d) for d in found], many=True).data)

    @extend_schema(
        request=s.ActionRequestSerializer,
        responses={
            202: s.MatchSerializer,
            409: OpenApiResponse(
                ErrorSerializer,
                description="This decision was answered already (the first answer stands), or "
                "its deadline has passed (the default action is then played).",
            ),
        },
        summary="Play your seat's action (the JSON a bot would return); the bots then play on",
    )
    def post(self, request: Request, match_id: str) -> Response:
        data = s.ActionRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        try:
            services.submit_action(
                user=request.user,
                match_id=match_id,
                action=v["action"],
                seat=v.get("seat"),
                step=v.get("step"),
            )
        except selectors.NotFound as exc:
            raise Http404(str(exc)) from None
        except services.Refused as exc:
            return Response({"action": [str(exc)]}, status=status.HTTP_400_BAD_REQUEST)
        except services.Conflict as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        fresh = selectors.find_match(match_id, request.user)
        assert fresh is not None  # the caller's own match, just acted on
        body = s.MatchSerializer(fresh, context={"request": request}).data
        return Response(body, status=status.HTTP_202_ACCEPTED)
