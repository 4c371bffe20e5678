"""Ladders, their ratings and each bot's rating history: read-only, open to anonymous readers.

A private bot's rating is listed (it plays in the ladder) under a neutral name and an opaque
player key, with no bot or version id, for anyone but its owner and staff, as the bot listing
itself would hide it (tournaments.play.visibility, "rated players"). The views read through
competition's and rating's selectors; the shapes are api/ladder_serializers.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from tournaments.competition import selectors
from tournaments.play import visibility
from tournaments.rating import selectors as rating_selectors
from tournaments.site import page_cache, token_lists
from tournaments.site.api.ladder_serializers import (
    HistoryFilter,
    LadderFilter,
    LadderSerializer,
    RatingHistorySerializer,
    RatingSerializer,
)

if TYPE_CHECKING:
    from tournaments.competition.models import Ladder
    from tournaments.rating.models import Rating, RatingHistory


class _LadderShapes(generics.GenericAPIView["Ladder"]):
    """A ladder's shape counts its members: read here, for the page (or the one ladder) at once,
    and handed to the serializer."""

    def get_serializer(self, *args: Any, **kwargs: Any) -> Any:
        if args:
            shown = list(args[0]) if kwargs.get("many") else [args[0]]
            kwargs["context"] = {
                **self.get_serializer_context(),
                "member_counts": selectors.member_counts(shown),
            }
        return super().get_serializer(*args, **kwargs)


class LadderListView(_LadderShapes, generics.ListAPIView["Ladder"]):
    serializer_class = LadderSerializer
    permission_classes = [AllowAny]

    def get_queryset(self) -> QuerySet[Ladder]:
        filters = LadderFilter(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        return selectors.ladders_listed(**filters.validated_data)

    @extend_schema(parameters=[LadderFilter], summary="Ladders, per game and seat count")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class LadderDetailView(_LadderShapes, generics.RetrieveAPIView["Ladder"]):
    serializer_class = LadderSerializer
    permission_classes = [AllowAny]
    lookup_url_kwarg = "ladder_id"

    def get_queryset(self) -> QuerySet[Ladder]:
        return selectors.ladders_listed()

    @extend_schema(summary="One ladder")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class LadderRatingsView(generics.ListAPIView["Rating"]):
    serializer_class = RatingSerializer
    permission_classes = [AllowAny]

    def get_queryset(self) -> QuerySet[Rating]:
        return selectors.ratings_of(
            get_object_or_404(selectors.ladders(), pk=self.kwargs["ladder_id"])
        )

    listed: list[Any] | None = None

    def paginate_queryset(self, queryset: Any) -> list[Any] | None:
        self.listed = super().paginate_queryset(queryset)
        return self.listed

    @extend_schema(
        summary="A ladder's ratings, best first: established bots by score, then provisional ones"
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        response = super().get(request, *args, **kwargs)
        if self.listed is not None:
            # Only its bots' owners see more of it (their private bots): shared with the rest.
            owners = [r.bot_version.bot.owner_id for r in self.listed if r.bot_version is not None]
            setattr(response, page_cache.LISTED, token_lists.ratings_listed(owners))
        return response


class LadderHistoryView(generics.ListAPIView["RatingHistory"]):
    serializer_class = RatingHistorySerializer
    permission_classes = [AllowAny]

    def get_queryset(self) -> QuerySet[RatingHistory]:
        ladder = get_object_or_404(selectors.ladders(), pk=self.kwargs["ladder_id"])
        filters = HistoryFilter(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        pool = selectors.pool(ladder)
        player: str | None = None
        if "player" in filters.validated_data:
            private = rating_selectors.private_players(pool)
            asked = filters.validated_data["player"]
            player = visibility.player_asked(self.request.user, asked, private)
            if player is None:
                return rating_selectors.history(pool).none()
        return rating_selectors.history(pool, player=player)

    @extend_schema(
        parameters=[HistoryFilter], summary="Rating history per match and bot, oldest first"
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)
