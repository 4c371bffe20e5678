"""Rating's reads: a pool's rating history and its private players, for the API and the pages."""

from __future__ import annotations

from datetime import datetime

from django.db.models import QuerySet

from tournaments.play.models import Bot, BotVersion
from tournaments.rating.models import Rating, RatingHistory


def history(pool: str, *, player: str | None = None) -> QuerySet[RatingHistory]:
    """The pool's rating changes (one player's if given), oldest first, with their bots."""
    qs = RatingHistory.objects.filter(pool=pool).select_related("bot_version__bot")
    if player is not None:
        qs = qs.filter(player=player)
    return qs.order_by("position", "player")


def private_players(pool: str) -> list[tuple[str, BotVersion]]:
    """(player key, version) of every private bot rated in the pool."""
    return [
        (r.player, r.bot_version)
        for r in Rating.objects.filter(pool=pool, bot_version__bot__is_public=False).select_related(
            "bot_version__bot"
        )
        if r.bot_version is not None
    ]


def bot_history(bot: Bot, *, limit: int = 2000) -> list[tuple[str, datetime | None, float]]:
    """(pool, the match's end, rating after) of the bot's first ``limit`` rated matches,
    oldest first, in every pool it was rated in (its versions' alike)."""
    return list(
        RatingHistory.objects.filter(bot_version__bot=bot)
        .order_by("position")
        .values_list("pool", "match__finished_at", "rating_after")[:limit]
    )
