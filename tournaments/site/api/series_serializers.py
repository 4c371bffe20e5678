"""Series and A/B tests: the request's shape (checked further by competition's series service)
and the answer's."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from tournaments.competition.models import Series
from tournaments.competition.services import MAX_DEALS, MAX_PAIRS
from tournaments.play.models import GAME_CHOICES
from tournaments.site.api.serializers import MAX_SEATS_ANY_GAME, SeatRequestSerializer


class TestRequestSerializer(serializers.Serializer[Any]):
    candidate = SeatRequestSerializer(
        help_text="The new version: {'bot_version': id} or a built-in."
    )
    baseline = SeatRequestSerializer(help_text="The version it is compared with, in the same seat.")
    field = serializers.ListField(
        child=SeatRequestSerializer(),
        min_length=1,
        max_length=MAX_SEATS_ANY_GAME,
        help_text="The opponents, in table order around the tested seat.",
    )
    elo0 = serializers.FloatField(default=0.0, help_text="H0: not better than this (pair Elo).")
    elo1 = serializers.FloatField(default=20.0, help_text="H1: better by at least this.")
    alpha = serializers.FloatField(default=0.05, help_text="Largest chance of a false 'better'.")
    beta = serializers.FloatField(default=0.05, help_text="Largest chance of a missed gain.")
    max_games = serializers.IntegerField(
        default=200, min_value=1, max_value=MAX_PAIRS, help_text="The pairs cap."
    )


class SeriesRequestSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(required=False, default="", allow_blank=True, max_length=100)
    game = serializers.ChoiceField(choices=GAME_CHOICES)
    players = serializers.ListField(
        child=SeatRequestSerializer(),
        required=False,
        default=list,
        max_length=MAX_SEATS_ANY_GAME,
        help_text="A plain series' table: {'bot_version': id} or {'builtin': name}, in seat order.",
    )
    deals = serializers.IntegerField(
        required=False,
        default=1,
        min_value=1,
        max_value=MAX_DEALS,
        help_text="Deals to play, each once per seat rotation (a plain series).",
    )
    options = serializers.DictField(required=False, default=dict, help_text="The game's options.")
    test = TestRequestSerializer(
        required=False, allow_null=True, default=None, help_text="Makes the series an A/B test."
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs.get("test") is None and not attrs.get("players"):
            raise serializers.ValidationError({"players": "give the players, or a test block"})
        return attrs


class SeriesSerializer(serializers.ModelSerializer[Series]):
    matches = serializers.SerializerMethodField()
    results = serializers.SerializerMethodField()

    class Meta:
        model = Series
        fields = [
            "id",
            "name",
            "game",
            "seats",
            "players",
            "deals",
            "options",
            "state",
            "test",
            "deals_started",
            "verdict",
            "created_at",
            "finished_at",
            "matches",
            "results",
        ]
        read_only_fields = fields

    def get_matches(self, series: Series) -> list[dict[str, Any]]:
        return self.context["matches"](series) if "matches" in self.context else []

    def get_results(self, series: Series) -> dict[str, Any] | None:
        return self.context["results"](series) if "results" in self.context else None


class SeriesListSerializer(serializers.ModelSerializer[Series]):
    class Meta:
        model = Series
        fields = ["id", "name", "game", "seats", "deals", "state", "test", "verdict", "created_at"]
        read_only_fields = fields
