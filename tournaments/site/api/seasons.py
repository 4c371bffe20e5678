"""Seasons: entrants, schedule, progress and standings. Read-only; staff run seasons in the admin."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q, QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import generics, serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from tournaments.competition import seasons
from tournaments.competition.models import Fixture, Season
from tournaments.play import visibility
from tournaments.play.models import GAME_CHOICES, Match
from tournaments.site.api.ladders import player_name


class StandingSerializer(serializers.Serializer[Any]):
    place = serializers.IntegerField()
    player = serializers.CharField()
    name = serializers.CharField()
    elo = serializers.FloatField()
    low = serializers.FloatField(help_text="95% confidence interval, low end (Elo scale)")
    high = serializers.FloatField()
    games = serializers.IntegerField()


class SeasonSerializer(serializers.ModelSerializer[Season]):
    entrants = serializers.SerializerMethodField()
    progress = serializers.SerializerMethodField()
    standings = serializers.SerializerMethodField()
    standings_final = serializers.SerializerMethodField()

    class Meta:
        model = Season
        fields = [
            "id",
            "name",
            "game",
            "seats",
            "options",
            "state",
            "format",
            "rounds",
            "games_per_table",
            "starts_at",
            "matches_per_hour",
            "started_at",
            "finished_at",
            "entrants",
            "progress",
            "standings",
            "standings_final",
        ]

    def get_entrants(self, season: Season) -> list[dict[str, Any]]:
        request = self.context["request"]
        return [
            {
                "player": visibility.player_as_seen(request.user, e.player, e.bot_version),
                "name": player_name(e.bot_version, e.builtin, request),
            }
            # .all(): the list prefetches every page's entrants at once.
            for e in sorted(season.entrants.all(), key=lambda e: e.pk)
        ]

    def get_progress(self, season: Season) -> dict[str, int]:
        if hasattr(season, "scheduled"):  # annotated by the list: no query per season
            return {"finished": season.finished, "scheduled": season.scheduled}  # type: ignore[attr-defined]
        done, total = seasons.progress(season)
        return {"finished": done, "scheduled": total}

    @extend_schema_field(StandingSerializer(many=True))
    def get_standings(self, season: Season) -> list[dict[str, Any]]:
        return seasons.standings_seen_by(season, self.context["request"].user)

    def get_standings_final(self, season: Season) -> bool:
        return season.standings is not None and season.state == Season.State.FINISHED


class SeasonListSerializer(SeasonSerializer):
    class Meta(SeasonSerializer.Meta):
        fields = [f for f in SeasonSerializer.Meta.fields if f != "standings"]


class FixtureSerializer(serializers.ModelSerializer[Fixture]):
    players = serializers.SerializerMethodField()
    status = serializers.SerializerMethodField()

    class Meta:
        model = Fixture
        fields = ["round", "table", "game_number", "players", "match", "status"]

    def get_players(self, fixture: Fixture) -> list[str]:
        """Seat order; a private bot's key opaque as on the standings (``hidden`` in context)."""
        hidden: set[str] = self.context["hidden"]
        return [visibility.opaque_player(p) if p in hidden else p for p in fixture.players]

    def get_status(self, fixture: Fixture) -> str:
        return fixture.match.status if fixture.match is not None else "scheduled"


class SeasonFilter(serializers.Serializer[Any]):
    game = serializers.ChoiceField(choices=GAME_CHOICES, required=False)
    state = serializers.ChoiceField(choices=Season.State.choices, required=False)


class SeasonListView(generics.ListAPIView[Season]):
    serializer_class = SeasonListSerializer
    permission_classes = [AllowAny]

    def get_queryset(self) -> QuerySet[Season]:
        filters = SeasonFilter(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        finished = Q(fixtures__match__status=Match.Status.FINISHED)
        return (
            Season.objects.filter(**filters.validated_data)
            .prefetch_related("entrants__bot_version__bot")
            .annotate(
                scheduled=Count("fixtures", distinct=True),
                finished=Count("fixtures", filter=finished, distinct=True),
            )
            .order_by("-created_at", "id")
        )

    @extend_schema(parameters=[SeasonFilter], summary="Seasons, newest first")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class SeasonDetailView(generics.RetrieveAPIView[Season]):
    serializer_class = SeasonSerializer
    permission_classes = [AllowAny]
    queryset = Season.objects.prefetch_related("entrants__bot_version__bot")
    lookup_url_kwarg = "season_id"

    @extend_schema(summary="One season: entrants, progress and standings with 95% intervals")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class SeasonScheduleView(generics.ListAPIView[Fixture]):
    serializer_class = FixtureSerializer
    permission_classes = [AllowAny]

    def get_serializer_context(self) -> dict[str, Any]:
        season = get_object_or_404(Season, pk=self.kwargs["season_id"])
        hidden = seasons.hidden_entrants(season, self.request.user)
        return {**super().get_serializer_context(), "hidden": hidden}

    def get_queryset(self) -> QuerySet[Fixture]:
        season = get_object_or_404(Season, pk=self.kwargs["season_id"])
        return (
            Fixture.objects.filter(season=season)
            .select_related("match")
            .order_by("round", "table", "game_number")
        )

    @extend_schema(summary="A season's schedule: every game, its match once started")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)
