"""Rating's reads: a pool's rating history and its private players, for the API and the pages."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db.models import QuerySet

from tournaments.play.models import Bot, BotVersion
from tournaments.rating import keys, ladder_order, settling
from tournaments.rating.models import Rating, RatingHistory
from tournaments.rating.ratings import ELO_PER_MU, Skill, is_provisional


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


@dataclass(frozen=True)
class Standing:
    """A bot's newest rated version in one ladder, and how far its rating is from settled."""

    ladder_id: int
    ladder: str
    version: int
    rating: float
    deviation: float
    games: int
    cap: float
    """The ladder's deviation cap (its placed bots' median): settled at or below it."""
    games_to_settle: int | None
    """About how many more games until settled (0: settled; None: more than can be told)."""


def ladder_standings(bot: Bot) -> list[Standing]:
    """Per ladder the bot's newest rated version is in, its rating and about how many more
    games until that rating is settled (tournaments/rating/settling.py)."""
    rows = (
        Rating.objects.filter(bot_version__bot=bot, ladder__isnull=False)
        .select_related("ladder", "bot_version")
        .order_by("ladder_id", "-bot_version__number")
    )
    newest: dict[int, Rating] = {}
    for row in rows:
        newest.setdefault(row.ladder_id, row)  # type: ignore[arg-type]
    out = []
    for ladder_id, row in newest.items():
        pool = Rating.objects.filter(pool=row.pool).values_list("deviation", "games")
        skills = [Skill(sigma=d / ELO_PER_MU, games=g) for d, g in pool]
        cap = ladder_order.uncertainty_cap(skills)
        placed = [s.deviation for s in skills if not is_provisional(s.games)]
        typical = statistics.median(placed) if placed else cap
        skill = Skill(mu=row.mu, sigma=row.sigma, elo=row.elo, games=row.games)
        out.append(
            Standing(
                ladder_id=ladder_id,
                ladder=row.ladder.name if row.ladder else row.pool,
                version=row.bot_version.number if row.bot_version else 0,
                rating=row.rating,
                deviation=row.deviation,
                games=row.games,
                cap=cap,
                games_to_settle=settling.games_to_settle(
                    skill, seats=row.ladder.seats if row.ladder else 4, cap=cap, typical=typical
                ),
            )
        )
    return out


def ladder_ratings_of_bots(bot_ids: list[int]) -> dict[int, list[tuple[int, str, float, int]]]:
    """Per bot, for each ladder its newest rated version is in: (ladder id, ladder name,
    rating, games), in one query however many bots (an account's "my bots" page)."""
    rows = (
        Rating.objects.filter(bot_version__bot_id__in=bot_ids, ladder__isnull=False)
        .order_by("bot_version__bot_id", "ladder_id", "-bot_version__number")
        .values_list("bot_version__bot_id", "ladder_id", "ladder__name", "rating", "games")
    )
    seen: set[tuple[int, int]] = set()
    out: dict[int, list[tuple[int, str, float, int]]] = {}
    for bot_id, ladder_id, name, rating, games in rows:
        if (bot_id, ladder_id) in seen:
            continue
        seen.add((bot_id, ladder_id))
        out.setdefault(bot_id, []).append((ladder_id, name, rating, games))
    return out


def predecessors(players: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Each version's earlier versions of the same bot, newest first."""
    ids = [v for v in map(keys.version_id, players) if v is not None]
    if not ids:
        return {}
    bots = dict(BotVersion.objects.filter(id__in=ids).values_list("id", "bot_id"))
    by_bot: dict[int, list[tuple[int, int]]] = {}
    for vid, bot_id, number in BotVersion.objects.filter(bot_id__in=set(bots.values())).values_list(
        "id", "bot_id", "number"
    ):
        by_bot.setdefault(bot_id, []).append((number, vid))
    out: dict[str, tuple[str, ...]] = {}
    for vid, bot_id in bots.items():
        versions = sorted(by_bot[bot_id], reverse=True)
        mine = next(n for n, v in versions if v == vid)
        out[f"v:{vid}"] = tuple(f"v:{v}" for n, v in versions if n < mine)
    return out
