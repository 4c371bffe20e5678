"""Replay endpoints: a match's state at step N, its download, and forks.

What each caller may see is decided by ``tournaments.play.visibility``, the same
rules the pages follow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.play import selectors, services, visibility
from tournaments.play.selectors import replay
from tournaments.site.api import serializers as s
from tournaments.site.api.permissions import Authenticated, ReadOrAuthenticated
from tournaments.site.api.throttles import ChallengeThrottle, ChargedOnSuccess

if TYPE_CHECKING:
    from tournaments.play.models import Match

VIEW_PARAM = OpenApiParameter(
    "view",
    str,
    description="public (a spectator's), seatK (what seat K's bot was shown), or all (the whole "
    "state). Before the match and every match of its duplicate deal are over: public, and your "
    "own seats' views.",
)


def _match(request: Request, match_id: Any) -> Match:
    """The match, if the caller may see it at all (another user's smoke match is a 404)."""
    return get_object_or_404(selectors.match_detail(match_id, request.user))


def _view(request: Request, match: Match) -> visibility.View:
    try:
        view = visibility.parse_view(request.query_params.get("view"), replay.seat_count(match))
    except visibility.BadView as exc:
        raise ValidationError({"view": [str(exc)]}) from None
    if not visibility.may_see(request.user, match, view):
        raise Http404("this view opens when the match (and its duplicate deal) is over")
    return view


class StepQuerySerializer(serializers.Serializer[Any]):
    step = serializers.IntegerField(
        required=False,
        min_value=0,
        help_text="Events folded (0: before the first); the last if omitted.",
    )


class StateSerializer(serializers.Serializer[Any]):
    match = serializers.UUIDField()
    status = serializers.CharField()
    step = serializers.IntegerField()
    last_version = serializers.IntegerField()
    view = serializers.CharField()
    state = serializers.JSONField(help_text="The seat's or spectator's observation, or the state.")


class MatchStateView(APIView):
    permission_classes = [ReadOrAuthenticated]

    @extend_schema(
        parameters=[StepQuerySerializer, VIEW_PARAM],
        responses={200: StateSerializer},
        summary="The match at step N as one view sees it (served from snapshots)",
    )
    def get(self, request: Request, match_id: str) -> Response:
        match = _match(request, match_id)
        query = StepQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        view = _view(request, match)
        step = query.validated_data.get("step")
        if step is not None and step > match.last_version:
            raise ValidationError(
                {"step": [f"this match has {match.last_version} events; step {step} is past them"]}
            )
        step = replay.clamp_step(match, step)
        return Response(
            {
                "match": match.pk,
                "status": match.status,
                "step": step,
                "last_version": match.last_version,
                "view": view.name,
                "state": replay.observation_at(match, step, view),
            }
        )


class MatchDownloadView(APIView):
    permission_classes = [ReadOrAuthenticated]

    @extend_schema(
        parameters=[VIEW_PARAM],
        responses={(200, "application/json"): OpenApiTypes.OBJECT},
        summary="The whole match as a file, in the format `manage.py play --out` writes",
        description="Once the match is over (finished or aborted), and every match of its "
        "duplicate deal too: every event as stored, except the verdict details of other users' "
        "bots and an abort's reason you may not read. Before: the events as the chosen view sees "
        "them (hidden payloads replaced by their redacted form), without the seed and options.",
    )
    def get(self, request: Request, match_id: str) -> Response:
        match = _match(request, match_id)
        view = _view(request, match)
        # Once the deal is over, the file is the whole match as stored (but for other bots' logs).
        seen_by = visibility.sight(
            request.user, match, None if visibility.deal_over(match) else view
        )
        doc = replay.document(match, seen_by, request.user)
        response = Response(doc)
        response["Content-Disposition"] = f'attachment; filename="match-{match.pk}.json"'
        return response


class ForkSerializer(serializers.Serializer[Any]):
    step = serializers.IntegerField(
        min_value=1,
        help_text="Copy the original's events up to this step (its last decision at or before it).",
    )
    seats = serializers.ListField(
        child=s.SeatRequestSerializer(),
        required=False,
        help_text="Per seat in table order: {'bot_version': id}, {'builtin': name}, or {} to keep "
        "the original's player. Omitted: every seat keeps its player.",
    )


class MatchForkView(ChargedOnSuccess, APIView):
    permission_classes = [Authenticated]
    throttle_classes = [ChallengeThrottle]

    @extend_schema(
        request=ForkSerializer,
        responses={201: s.MatchSerializer},
        summary="Fork a match that is over at step N into a new unrated match that plays on",
        description="The fork starts just before the last decision at or before N, replays the "
        "original's events up to there with the same seed, and the runner plays it on. Only the "
        "owner of a bot in the match may fork it, and a match of a duplicate deal only once "
        "every match of the deal is over (a 400 says so before).",
    )
    def post(self, request: Request, match_id: str) -> Response:
        original = _match(request, match_id)
        data = ForkSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fork = services.fork_match(
            user=request.user,
            original=original,
            step=data.validated_data["step"],
            seats=data.validated_data.get("seats"),
        )
        fresh = selectors.find_match(fork.pk, request.user)
        assert fresh is not None  # the fork the caller just made
        return Response(
            s.MatchSerializer(fresh, context={"request": request}).data,
            status=status.HTTP_201_CREATED,
        )
