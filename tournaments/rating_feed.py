"""Ratings as a read model of the event store: fed by ``match_finished`` events in global order.

The consumer reads the global feed (:mod:`replays.feed`) and writes ratings and
rating-history rows in the same transaction as its checkpoint. Each result
counts once: a global advisory lock serialises every writer of ratings (two
consumers, a consumer and a rebuild), and a match that already has history rows
is skipped, so the same event consumed twice, by a reset checkpoint or a second
consumer, changes nothing (the unique (match, player) history index is the
backstop). ``rebuild`` replays every stored result through the same code and
must arrive at exactly the stored ratings.
"""

from __future__ import annotations

import uuid
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from django.db import connection, transaction

from games.engine.platform_events import MATCH_FINISHED
from replays import feed
from replays.store import StoredEvent
from tournaments import ratings
from tournaments.models import BotVersion, Match, Rating, RatingHistory, Seat

CONSUMER = "ratings"
_LOCK = zlib.crc32(b"tournaments.ratings")


def pool_of(*, ladder_id: int | None, season_id: int | None, game: str, seats: int) -> str:
    """Where a rated match's ratings live: its ladder, its season, or the game at that size."""
    if ladder_id is not None:
        return f"ladder:{ladder_id}"
    if season_id is not None:
        return f"season:{season_id}"
    return f"{game}:{seats}"


def player_of(*, bot_version_id: int | None, builtin: str) -> str:
    return f"v:{bot_version_id}" if bot_version_id is not None else f"builtin:{builtin}"


def version_id(player: str) -> int | None:
    return int(player[2:]) if player.startswith("v:") else None


def _lock() -> None:
    with connection.cursor() as cur:
        cur.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK])


# Reading results


def results(events: Sequence[StoredEvent], *, skip_rated: bool = True) -> list[ratings.Result]:
    """The rated results among ``events``, in their order (unrated and already-rated left out)."""
    finished = [e for e in events if e.type == MATCH_FINISHED]
    ids = [e.stream_id for e in finished]
    matches = {
        m["id"]: m
        for m in Match.objects.filter(id__in=ids, rated=True).values(
            "id", "game", "ladder_id", "season_id"
        )
    }
    if skip_rated and matches:
        done = set(
            RatingHistory.objects.filter(match_id__in=list(matches))
            .values_list("match_id", flat=True)
            .distinct()
        )
        for match_id in done:
            matches.pop(match_id, None)
    seats: dict[uuid.UUID, list[str]] = {}
    for match_id, bot_version_id, builtin in (
        Seat.objects.filter(match_id__in=list(matches))
        .order_by("match_id", "number")
        .values_list("match_id", "bot_version_id", "builtin")
    ):
        seats.setdefault(match_id, []).append(
            player_of(bot_version_id=bot_version_id, builtin=builtin)
        )
    earlier = predecessors({p for ps in seats.values() for p in ps})
    out: list[ratings.Result] = []
    seen: set[uuid.UUID] = set()
    for event in finished:
        match = matches.get(event.stream_id)
        if match is None or event.stream_id in seen:
            continue
        seen.add(event.stream_id)
        players = tuple(seats.get(event.stream_id, ()))
        ranks = tuple(int(r) for r in event.payload["outcome"]["ranks"])
        if len(players) != len(ranks):
            continue
        out.append(
            ratings.Result(
                position=event.position,
                match=str(event.stream_id),
                pool=pool_of(
                    ladder_id=match["ladder_id"],
                    season_id=match["season_id"],
                    game=match["game"],
                    seats=len(players),
                ),
                players=players,
                ranks=ranks,
                predecessors=tuple(earlier.get(p, ()) for p in players),
            )
        )
    return out


def predecessors(players: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Each version's earlier versions of the same bot, newest first."""
    ids = [v for v in map(version_id, players) if v is not None]
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


# Writing ratings


def _stored_skills(found: Iterable[ratings.Result]) -> dict[tuple[str, str], ratings.Skill]:
    pools: set[str] = set()
    players: set[str] = set()
    for result in found:
        pools.add(result.pool)
        players.update(result.players)
        for preds in result.predecessors:
            players.update(preds)
    rows = Rating.objects.filter(pool__in=pools, player__in=players).values_list(
        "pool", "player", "mu", "sigma", "elo", "games"
    )
    return {
        (pool, player): ratings.Skill(mu=mu, sigma=sigma, elo=elo, games=games)
        for pool, player, mu, sigma, elo, games in rows
    }


def _rating_row(pool: str, player: str, skill: ratings.Skill) -> Rating:
    kind, _, ident = pool.partition(":")
    vid = version_id(player)
    return Rating(
        pool=pool,
        player=player,
        ladder_id=int(ident) if kind == "ladder" else None,
        season_id=int(ident) if kind == "season" else None,
        bot_version_id=vid,
        builtin="" if vid is not None else player.removeprefix("builtin:"),
        mu=skill.mu,
        sigma=skill.sigma,
        elo=skill.elo,
        rating=skill.rating,
        deviation=skill.deviation,
        conservative=skill.conservative,
        games=skill.games,
    )


def _history_row(change: ratings.Change) -> RatingHistory:
    vid = version_id(change.player)
    return RatingHistory(
        match_id=uuid.UUID(change.match),
        position=change.position,
        pool=change.pool,
        player=change.player,
        bot_version_id=vid,
        builtin="" if vid is not None else change.player.removeprefix("builtin:"),
        rank=change.rank,
        mu_before=change.before.mu,
        sigma_before=change.before.sigma,
        mu_after=change.after.mu,
        sigma_after=change.after.sigma,
        rating_before=change.before.rating,
        rating_after=change.after.rating,
        elo_before=change.before.elo,
        elo_after=change.after.elo,
    )


_RATING_FIELDS = ["mu", "sigma", "elo", "rating", "deviation", "conservative", "games"]


def _write(book: ratings.Book, changes: Sequence[ratings.Change]) -> None:
    touched = {(c.pool, c.player) for c in changes}
    Rating.objects.bulk_create(
        [_rating_row(pool, player, book.skills[(pool, player)]) for pool, player in touched],
        update_conflicts=True,
        unique_fields=["pool", "player"],
        update_fields=[*_RATING_FIELDS, "updated_at"],
        batch_size=2000,
    )
    RatingHistory.objects.bulk_create(map(_history_row, changes), batch_size=2000)


def handle(events: list[StoredEvent]) -> None:
    """Rate the batch; runs inside the feed's transaction, which also moves the checkpoint."""
    _lock()
    found = results(events)
    if not found:
        return
    book = ratings.Book(_stored_skills(found))
    changes = [change for result in found for change in book.apply(result)]
    _write(book, changes)


def consume(consumer: str = CONSUMER, limit: int = 1000) -> int:
    """Rate everything the feed has settled; returns how many results were read."""
    total = 0
    while True:
        n = feed.consume(consumer, handle, limit=limit, event_type=MATCH_FINISHED)
        total += n
        if n < limit:
            return total


# Rebuild


@dataclass(frozen=True)
class Rebuilt:
    results: int
    ratings: int
    history: int
    differences: list[str]


def _all_finished(up_to: int, chunk: int = 5000) -> Iterator[list[StoredEvent]]:
    position = 0
    while True:
        events = [
            e
            for e in feed.read_after(position, chunk, event_type=MATCH_FINISHED)
            if e.position <= up_to
        ]
        if not events:
            return
        yield events
        position = events[-1].position


def recompute(up_to: int) -> tuple[ratings.Book, list[ratings.Change], int]:
    """Every rated result up to ``up_to`` through a fresh book, in global order."""
    book = ratings.Book()
    changes: list[ratings.Change] = []
    count = 0
    for events in _all_finished(up_to):
        found = results(events, skip_rated=False)
        count += len(found)
        for result in found:
            changes.extend(book.apply(result))
    return book, changes, count


def _differences(book: ratings.Book) -> list[str]:
    stored = {
        (pool, player): (mu, sigma, elo, games)
        for pool, player, mu, sigma, elo, games in Rating.objects.values_list(
            "pool", "player", "mu", "sigma", "elo", "games"
        )
    }
    computed = {key: (s.mu, s.sigma, s.elo, s.games) for key, s in book.skills.items()}
    diffs = []
    for key in sorted(stored.keys() | computed.keys()):
        if stored.get(key) != computed.get(key):
            diffs.append(
                f"{key[0]} {key[1]}: stored {stored.get(key)}, rebuilt {computed.get(key)}"
            )
    return diffs


def rebuild(*, write: bool = True, consumer: str = CONSUMER) -> Rebuilt:
    """Recompute every rating from the stored events up to the consumer's checkpoint.

    Returns how the recomputed ratings differ from the stored ones (they must
    not), then, if ``write``, replaces the stored ratings and history with them.
    """
    with transaction.atomic():
        _lock()
        with connection.cursor() as cur:  # the consumer's own lock: its checkpoint stays put
            cur.execute("SELECT pg_advisory_xact_lock(%s)", [zlib.crc32(consumer.encode())])
        book, changes, count = recompute(feed.checkpoint(consumer))
        diffs = _differences(book)
        if write:
            RatingHistory.objects.all().delete()
            Rating.objects.all().delete()
            _write(book, changes)
    return Rebuilt(count, len(book.skills), len(changes), diffs)
