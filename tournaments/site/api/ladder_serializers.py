"""The shapes of ladders, their ratings and each bot's rating history (the views: api/ladders.py).

A private bot's rating is listed (it plays in the ladder) under a neutral name and an opaque
player key, with no bot or version id, for anyone but its owner and staff, as the bot listing
itself would hide it (tournaments.play.visibility, "rated players").
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.request import Request

from tournaments.competition.models import Ladder
from tournaments.play import visibility
from tournaments.play.models import GAME_CHOICES
from tournaments.rating.models import Rating, RatingHistory

PRIVATE = visibility.PRIVATE_BOT


def player_name(version: Any, builtin: str, request: Request) -> str:
    """How a rated player is shown: "bot vN", a built-in's name, or a neutral private label."""
    return visibility.player_name(request.user, version, builtin)


class LadderSerializer(serializers.ModelSerializer[Ladder]):
    members = serializers.SerializerMethodField()
    rated_players = serializers.SerializerMethodField()

    class Meta:
        model = Ladder
        fields = [
            "id",
            "name",
            "game",
            "seats",
            "options",
            "is_active",
            "duplicate_deals",
            "games_per_day",
            "builtins",
            "members",
            "rated_players",
            "created_at",
        ]

    # Both counts are read by the views through competition's selectors, a page at once: the
    # members in the context (``member_counts``), the rated players annotated (``rated``).
    def get_members(self, ladder: Ladder) -> int:
        counts: dict[int, int] = self.context["member_counts"]
        return counts[ladder.pk]

    def get_rated_players(self, ladder: Ladder) -> int:
        return int(ladder.rated)  # type: ignore[attr-defined]  # selectors.ladders_listed


class RatingSerializer(serializers.ModelSerializer[Rating]):
    player = serializers.SerializerMethodField(
        help_text='"v:<bot version id>", "builtin:<name>", or "p:<opaque>" for a private bot.'
    )
    name = serializers.SerializerMethodField()
    bot = serializers.SerializerMethodField()
    bot_version = serializers.SerializerMethodField()
    provisional = serializers.BooleanField(
        read_only=True,
        help_text="Fewer than 8 games: listed after the established bots.",
    )
    score = serializers.FloatField(
        read_only=True,
        help_text="What the ladder ranks the established bots by: rating - 3 deviation, with the "
        "deviation capped at the established bots' median (docs/ladders.md).",
    )

    class Meta:
        model = Rating
        fields = [
            "player",
            "name",
            "bot",
            "bot_version",
            "builtin",
            "rating",
            "deviation",
            "conservative",
            "score",
            "provisional",
            "elo",
            "mu",
            "sigma",
            "games",
            "updated_at",
        ]

    def get_player(self, rating: Rating) -> str:
        user = self.context["request"].user
        return visibility.player_as_seen(user, rating.player, rating.bot_version)

    def get_name(self, rating: Rating) -> str:
        return player_name(rating.bot_version, rating.builtin, self.context["request"])

    def get_bot_version(self, rating: Rating) -> int | None:
        return visibility.version_id_as_seen(self.context["request"].user, rating.bot_version)

    def get_bot(self, rating: Rating) -> int | None:
        if (
            rating.bot_version is None
            or player_name(rating.bot_version, "", self.context["request"]) == PRIVATE
        ):
            return None
        return rating.bot_version.bot_id


class RatingHistorySerializer(serializers.ModelSerializer[RatingHistory]):
    player = serializers.SerializerMethodField(
        help_text='"v:<bot version id>", "builtin:<name>", or "p:<opaque>" for a private bot.'
    )
    change = serializers.FloatField(read_only=True)

    def get_player(self, row: RatingHistory) -> str:
        user = self.context["request"].user
        return visibility.player_as_seen(user, row.player, row.bot_version)

    class Meta:
        model = RatingHistory
        fields = [
            "match",
            "position",
            "player",
            "rank",
            "rating_before",
            "rating_after",
            "change",
            "elo_before",
            "elo_after",
            "mu_before",
            "sigma_before",
            "mu_after",
            "sigma_after",
        ]


class LadderFilter(serializers.Serializer[Any]):
    game = serializers.ChoiceField(choices=GAME_CHOICES, required=False)
    seats = serializers.IntegerField(min_value=2, max_value=6, required=False)


class HistoryFilter(serializers.Serializer[Any]):
    player = serializers.RegexField(
        rf"^(v:\d+|builtin:[a-z_]+|{visibility.OPAQUE_PLAYER}[0-9a-f]{{24}})$",
        required=False,
        help_text='"v:<bot version id>", "builtin:<name>" or a private bot\'s "p:<opaque>" key, '
        "as the ratings list them; all players if omitted.",
    )
