"""The shapes of seasons: entrants, schedule, progress and standings (the views: api/seasons.py)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from tournaments.competition.models import Fixture, Season
from tournaments.play import visibility
from tournaments.play.models import GAME_CHOICES
from tournaments.site.api.ladder_serializers import player_name


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
        # Annotated by competition's selectors (``seasons_listed``): no query per season.
        return {"finished": season.finished, "scheduled": season.scheduled}  # type: ignore[attr-defined]

    @extend_schema_field(StandingSerializer(many=True))
    def get_standings(self, season: Season) -> list[dict[str, Any]]:
        # Read by the view (selectors.standings_seen_by): fitted, or frozen, as the caller sees them.
        standings: list[dict[str, Any]] = self.context["standings"]
        return standings

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
