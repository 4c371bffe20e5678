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
from typing import Any

from django.db import connection, transaction

from games.engine.platform_events import MATCH_FINISHED
from replays import feed
from replays.store import StoredEvent
from tournaments import ratings
from tournaments.models import BotVersion, Rating

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


# One round trip per batch, with the ids bound as one array parameter (server-side):
# quoting a thousand ids into the query text cost more than running it.
_RESULTS = """
SELECT m.id, m.game, m.ladder_id, m.season_id,
       array_agg(CASE WHEN s.bot_version_id IS NULL THEN 'builtin:' || s.builtin
                      ELSE 'v:' || s.bot_version_id END ORDER BY s.number),
       EXISTS (SELECT 1 FROM tournaments_ratinghistory h WHERE h.match_id = m.id)
FROM tournaments_match m JOIN tournaments_seat s ON s.match_id = m.id
WHERE m.id = ANY(%s) AND m.rated
GROUP BY m.id
"""


def _raw() -> Any:
    connection.ensure_connection()
    raw = connection.connection
    assert raw is not None
    return raw


def results(events: Sequence[StoredEvent], *, skip_rated: bool = True) -> list[ratings.Result]:
    """The rated results among ``events``, in their order (unrated and already-rated left out)."""
    finished = [e for e in events if e.type == MATCH_FINISHED]
    if not finished:
        return []
    with _raw().cursor() as cur:
        cur.execute(_RESULTS, [[e.stream_id for e in finished]])
        rows = cur.fetchall()
    matches = {row[0]: row for row in rows if not (skip_rated and row[5])}
    versions = {p for row in matches.values() for p in row[4] if p.startswith("v:")}
    earlier = predecessors(versions)
    out: list[ratings.Result] = []
    seen: set[uuid.UUID] = set()
    for event in finished:
        match = matches.get(event.stream_id)
        if match is None or event.stream_id in seen:
            continue
        seen.add(event.stream_id)
        players = tuple(match[4])
        ranks = tuple(int(r) for r in event.payload["outcome"]["ranks"])
        if len(players) != len(ranks):
            continue
        out.append(
            ratings.Result(
                position=event.position,
                match=str(event.stream_id),
                pool=pool_of(
                    ladder_id=match[2], season_id=match[3], game=match[1], seats=len(players)
                ),
                players=players,
                ranks=ranks,
                predecessors=tuple(earlier.get(p, ()) for p in players) if earlier else (),
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


_UPSERT = """
INSERT INTO tournaments_rating (pool, player, ladder_id, season_id, bot_version_id, builtin,
    mu, sigma, elo, rating, deviation, conservative, games, updated_at)
SELECT v.*, now() FROM unnest(
    %s::text[], %s::text[], %s::bigint[], %s::bigint[], %s::bigint[], %s::text[],
    %s::float8[], %s::float8[], %s::float8[], %s::float8[], %s::float8[], %s::float8[], %s::int[]
) AS v
ON CONFLICT (pool, player) DO UPDATE SET
    mu = excluded.mu, sigma = excluded.sigma, elo = excluded.elo, rating = excluded.rating,
    deviation = excluded.deviation, conservative = excluded.conservative,
    games = excluded.games, updated_at = excluded.updated_at
"""
_HISTORY_COPY = (
    "COPY tournaments_ratinghistory (match_id, position, pool, player, bot_version_id, builtin,"
    " rank, mu_before, sigma_before, mu_after, sigma_after, rating_before, rating_after,"
    " elo_before, elo_after) FROM STDIN"
)


def _ids(pool: str, player: str) -> tuple[int | None, int | None, int | None, str]:
    """(ladder, season, bot version, builtin) of a rating row."""
    kind, _, ident = pool.partition(":")
    vid = version_id(player)
    return (
        int(ident) if kind == "ladder" else None,
        int(ident) if kind == "season" else None,
        vid,
        "" if vid is not None else player.removeprefix("builtin:"),
    )


_NULL = "\\N"


def _history_line(c: ratings.Change) -> str:
    vid = version_id(c.player)
    builtin = "" if vid is not None else c.player.removeprefix("builtin:")
    version = _NULL if vid is None else str(vid)
    b, a = c.before, c.after
    # repr() of a float is exact, so the stored history rebuilds to the same bits.
    return (
        f"{c.match}\t{c.position}\t{c.pool}\t{c.player}\t{version}"
        f"\t{builtin}\t{c.rank}\t{b.mu!r}\t{b.sigma!r}\t{a.mu!r}\t{a.sigma!r}"
        f"\t{b.rating!r}\t{a.rating!r}\t{b.elo!r}\t{a.elo!r}\n"
    )


def _write(book: ratings.Book, changes: Sequence[ratings.Change]) -> None:
    """Upsert the touched ratings in one statement and COPY the history rows."""
    touched = sorted({(c.pool, c.player) for c in changes})
    columns: list[list[Any]] = [[] for _ in range(13)]
    for pool, player in touched:
        skill = book.skills[(pool, player)]
        ladder, season, vid, builtin = _ids(pool, player)
        values = (
            pool,
            player,
            ladder,
            season,
            vid,
            builtin,
            skill.mu,
            skill.sigma,
            skill.elo,
            skill.rating,
            skill.deviation,
            skill.conservative,
            skill.games,
        )
        for column, value in zip(columns, values, strict=True):
            column.append(value)
    with _raw().cursor() as cur:
        cur.execute(_UPSERT, columns)
        with cur.copy(_HISTORY_COPY) as copy:
            for start in range(0, len(changes), 5000):
                copy.write("".join(map(_history_line, changes[start : start + 5000])))


def handle(events: list[StoredEvent]) -> None:
    """Rate the batch; runs inside the feed's transaction, which also moves the checkpoint."""
    _lock()
    found = results(events)
    if not found:
        return
    book = ratings.Book(_stored_skills(found))
    changes = [change for result in found for change in book.apply(result)]
    _write(book, changes)


def consume(consumer: str = CONSUMER, limit: int = 2000) -> int:
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
            with connection.cursor() as cur:
                cur.execute("TRUNCATE tournaments_ratinghistory, tournaments_rating")
            _write(book, changes)
    return Rebuilt(count, len(book.skills), len(changes), diffs)
