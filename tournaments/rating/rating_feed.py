"""Ratings as a read model of the event store: fed by ``match_finished`` events in global order.

The consumer reads the global feed (:mod:`replays.feed`) and writes ratings and
rating-history rows in the same transaction as its checkpoint. Each result
counts once: a global advisory lock serialises every writer of ratings (two
consumers, a consumer and a rebuild), and a match that already has history rows
is skipped, so the same event consumed twice, by a reset checkpoint or a second
consumer, changes nothing (the (match, player) history primary key is the
backstop). ``rebuild`` replays every stored result through the same code and
must arrive at exactly the stored ratings.
"""

from __future__ import annotations

import gc
import struct
import zlib
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import orjson
from django.db import connection, transaction
from psycopg.copy import QueuedLibpqWriter

from games.engine.platform_events import MATCH_FINISHED
from replays import feed, upcasting
from tournaments.play.models import BotVersion
from tournaments.rating import ratings
from tournaments.rating.models import Rating

CONSUMER = "ratings"
_LOCK = zlib.crc32(b"tournaments.rating.ratings")


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


def _index_plans() -> None:
    """Plan the rest of this transaction's reads as the key lookups they are.

    A batch read is the next few thousand events in position order, each with its match,
    seats and history found by key. Without fresh statistics (a backlog just written,
    as in ``bench ratings``) the planner took the event table for a few rows and read
    all the rest of it, sorted, every batch (180-220 ms a batch at 60,000 results
    against 100 ms this way, 2026-12-01); and the batch's estimated cost is over the JIT
    threshold, where compiling cost about 30 ms a batch for nothing. Every later
    statement of the transaction is a lookup by key too (ratings, checkpoint).
    """
    with connection.cursor() as cur:
        cur.execute(
            "SELECT set_config('enable_seqscan', 'off', true),"
            " set_config('enable_bitmapscan', 'off', true), set_config('jit', 'off', true)"
        )


# Reading results


# One round trip per batch reads the settled match_finished events with everything the
# ratings need: the ranks alone out of the payload (decoding whole events cost more than
# rating them), the match's pool, its players in seat order, and whether it is rated already.
# Each event's match is looked up by its key in a lateral subquery (LIMIT 1 keeps the planner
# from flattening it): as a plain join the planner scanned every match and hashed them, and
# hashed the EXISTS over the whole history table, work that grew with the tables (at 100,000
# results 165-300 ms a batch of 5,000 against 80-145 ms this way, EXPLAIN ANALYZE, 2026-12-01).
# The players are read in seat order off the (match, number) index into an array (no sort,
# no aggregate), handed over as one string: psycopg parses a text array slower than
# Python splits a string.
_RESULT_COLUMNS = """
SELECT e.position, e.stream_id::text, e.schema_version, e.ranks, m.game, m.ladder_id, m.season_id,
       m.players, m.rated
FROM ({events}) e
LEFT JOIN LATERAL (
    SELECT m.game, m.ladder_id, m.season_id,
           nullif(array_to_string(ARRAY(
               SELECT coalesce('v:' || s.bot_version_id, 'builtin:' || s.builtin)
               FROM tournaments_seat s WHERE s.match_id = m.id ORDER BY s.number
           ), ','), '') AS players,
           EXISTS (SELECT FROM tournaments_ratinghistory h WHERE h.match_id = m.id) AS rated
    FROM tournaments_match m WHERE m.id = e.stream_id AND m.rated LIMIT 1
) m ON true
ORDER BY e.position
"""
_SETTLED_RESULTS = _RESULT_COLUMNS.format(
    events=feed.settled(
        "position, stream_id, schema_version, (payload -> 'outcome' -> 'ranks')::text AS ranks",
        of_type=True,
    )
)
# The rebuild's read: the same, up to a position (the consumer's checkpoint) and unfenced.
_STORED_RESULTS = _RESULT_COLUMNS.format(
    events="SELECT position, stream_id, schema_version,"
    " (payload -> 'outcome' -> 'ranks')::text AS ranks FROM replays_event"
    " WHERE position > %s AND position <= %s AND event_type = %s ORDER BY position LIMIT %s"
)
# position, match id, schema version, ranks (JSON), game, ladder, season, players in seat
# order (comma-separated "v:<version id>" or "builtin:<name>", and names are identifiers;
# None without a rated match or seats), rated already (None without a rated match)?
ResultRow = tuple[
    int, str, int, str | None, str | None, int | None, int | None, str | None, bool | None
]


def _raw() -> Any:
    connection.ensure_connection()
    raw = connection.connection
    assert raw is not None
    return raw


def _rows(sql: str, params: Sequence[Any]) -> list[ResultRow]:
    with _raw().cursor() as cur:
        cur.execute(sql, params)
        return cur.fetchall()  # type: ignore[no-any-return]


def _ranks(position: int, schema_version: int, ranks: str | None) -> list[int] | None:
    if upcasting.current(MATCH_FINISHED, schema_version):
        return None if ranks is None else orjson.loads(ranks)
    # An older payload: read it whole and upcast it, as every reader of the store does.
    with _raw().cursor() as cur:
        cur.execute("SELECT payload::text FROM replays_event WHERE position = %s", [position])
        (payload,) = cur.fetchone()
    _, upcast = upcasting.upcast(MATCH_FINISHED, schema_version, orjson.loads(payload))
    found = upcast.get("outcome", {}).get("ranks")
    return None if found is None else list(found)


def results(
    rows: Sequence[ResultRow], *, skip_rated: bool = True, seen: set[str] | None = None
) -> list[ratings.Result]:
    """The rated results among the rows, in feed order (unrated and already-rated left out).

    A match rated once is not rated again: one finishing twice (a retry) counts its first
    result; ``seen`` carries the matches already taken across batches of one pass.
    """
    seen = set() if seen is None else seen
    versions = {p for row in rows if row[7] for p in row[7].split(",") if p.startswith("v:")}
    earlier = predecessors(versions) if versions else {}
    out: list[ratings.Result] = []
    for position, match, schema, ranks_text, game, ladder, season, players, rated in rows:
        if players is None or game is None or (skip_rated and rated) or match in seen:
            continue
        seen.add(match)
        ranks = _ranks(position, schema, ranks_text)
        seats = tuple(players.split(","))
        if ranks is None or len(seats) != len(ranks):
            continue
        out.append(
            ratings.Result(
                position,
                match,
                pool_of(ladder_id=ladder, season_id=season, game=game, seats=len(seats)),
                seats,
                tuple(int(r) for r in ranks),
                tuple(earlier.get(p, ()) for p in seats) if earlier else (),
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
SELECT pool, player, ladder_id, season_id, bot_version_id, builtin,
    mu, sigma, elo, rating, deviation, conservative, games, now()
FROM unnest(
    %s::text[], %s::text[], %s::bigint[], %s::bigint[], %s::bigint[], %s::text[],
    %s::float8[], %s::float8[], %s::float8[], %s::float8[], %s::float8[], %s::float8[], %s::int[]
) WITH ORDINALITY AS v(pool, player, ladder_id, season_id, bot_version_id, builtin,
    mu, sigma, elo, rating, deviation, conservative, games, n)
ORDER BY n
ON CONFLICT (pool, player) DO UPDATE SET
    mu = excluded.mu, sigma = excluded.sigma, elo = excluded.elo, rating = excluded.rating,
    deviation = excluded.deviation, conservative = excluded.conservative,
    games = excluded.games, updated_at = excluded.updated_at
"""
_HISTORY_COPY = (
    "COPY tournaments_ratinghistory (match_id, position, pool, player, bot_version_id, builtin,"
    " rank, mu_before, sigma_before, mu_after, sigma_after, rating_before, rating_after,"
    " elo_before, elo_after) FROM STDIN (FORMAT binary)"
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


# The history goes to the server in COPY's binary format: packing eight doubles is ten
# times cheaper than formatting them as text, and keeps every bit (the rebuild compares).
_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
_COPY_TRAILER = struct.pack(">h", -1)
_ROW_START = struct.Struct(">hi16siq")  # 15 fields; match_id uuid; position bigint
_ROW_END = struct.Struct(">ih" + "id" * 8)  # rank smallint; mu, sigma, rating, elo before/after
_NULL_FIELD = struct.pack(">i", -1)


def _text_field(text: str) -> bytes:
    data = text.encode()
    return struct.pack(">i", len(data)) + data


def _player_fields(player: str) -> bytes:
    """The history row's player, bot version and built-in name, as COPY binary fields."""
    vid = version_id(player)
    if vid is None:
        return _text_field(player) + _NULL_FIELD + _text_field(player.removeprefix("builtin:"))
    return _text_field(player) + struct.pack(">iq", 8, vid) + _text_field("")


class _HistoryRows:
    """History rows packed for ``COPY ... (FORMAT binary)``, with the fields each player
    and pool always has packed once."""

    def __init__(self) -> None:
        self.players: dict[str, bytes] = {}
        self.pools: dict[str, bytes] = {}

    def pack(self, match: str, position: int, changes: Iterable[ratings.Change]) -> bytes:
        start = _ROW_START.pack(15, 16, bytes.fromhex(match.replace("-", "")), 8, position)
        parts: list[bytes] = []
        for c in changes:
            pool = self.pools.get(c.pool)
            if pool is None:
                pool = self.pools[c.pool] = _text_field(c.pool)
            who = self.players.get(c.player)
            if who is None:
                who = self.players[c.player] = _player_fields(c.player)
            b, a = c.before, c.after
            parts += (start, pool, who)
            parts.append(
                _ROW_END.pack(
                    2,
                    c.rank,
                    8,
                    b.mu,
                    8,
                    b.sigma,
                    8,
                    a.mu,
                    8,
                    a.sigma,
                    8,
                    b.rating,
                    8,
                    a.rating,
                    8,
                    b.elo,
                    8,
                    a.elo,
                )
            )
        return b"".join(parts)


def _upsert(book: ratings.Book, touched: Iterable[tuple[str, str]]) -> None:
    """Upsert the touched ratings in one statement, new rows in ``touched``'s order.

    A new row's id is the ladder's last tie-break (tournaments.rating.ladder_order: the order
    players were first rated), so ``touched`` comes in the order the results rated them, never
    sorted by key: a private bot's key must not decide its place among equals, and the
    rebuild, whose batches need not be the consumer's, gives the same order.
    """
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


# Results rated between two writes to the server: COPY stores one chunk while the next is rated.
_CHUNK = 500


def rate_and_write(book: ratings.Book, found: Iterable[ratings.Result]) -> int:
    """Apply the results to ``book``, COPY their history rows and upsert the ratings they moved.

    The history streams to the server while the results are rated: a writer thread
    hands each chunk to the connection, so the database stores one chunk while
    Python rates the next. Returns how many history rows it wrote.
    """
    touched: dict[tuple[str, str], None] = {}  # in the order first rated: a set has none
    rows = _HistoryRows()
    written = 0
    with _raw().cursor() as cur, cur.copy(_HISTORY_COPY, writer=QueuedLibpqWriter(cur)) as copy:
        copy.write(_COPY_HEADER)
        pending: list[bytes] = []
        for result in found:
            changes = book.apply(result)
            if changes:
                pending.append(rows.pack(result.match, result.position, changes))
                touched.update(dict.fromkeys((c.pool, c.player) for c in changes))
                written += len(changes)
            if len(pending) >= _CHUNK:
                copy.write(b"".join(pending))
                pending = []
        pending.append(_COPY_TRAILER)
        copy.write(b"".join(pending))
    _upsert(book, touched)
    return written


def _relaxed_commit() -> None:
    """Commit this transaction without waiting for its WAL to reach the disk.

    The ratings are a read model: a server crash may lose the last few batches, but
    their checkpoint moves are lost with them (same transaction), so they are rated
    again from the events. What a crash cannot do is leave half a batch.
    """
    with connection.cursor() as cur:
        cur.execute("SET LOCAL synchronous_commit TO OFF")


@contextmanager
def _without_cycle_collection() -> Iterator[None]:
    """Pause Python's cycle collector while a batch is rated.

    A batch holds thousands of rows and results while it is rated; the collector
    would walk them again and again (a third of the rating time, measured), and
    nothing a batch builds forms a reference cycle: reference counting frees it all.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def handle(rows: Sequence[ResultRow]) -> int:
    """Rate a batch read with the global lock held; returns the history rows written.

    Runs inside the feed's transaction, which also moves the checkpoint.
    """
    found = results(rows)
    if not found:
        return 0
    return rate_and_write(ratings.Book(_stored_skills(found)), found)


def consume_batch(consumer: str = CONSUMER, limit: int = 5000) -> int:
    """Rate the next batch the feed has settled, in one transaction with its checkpoint.

    Returns how many match_finished events it read (0: none settled yet).
    """

    def step(position: int) -> tuple[int | None, int]:
        # The global lock first: whether a match is rated already is read after it.
        _lock()
        _index_plans()
        rows = _rows(_SETTLED_RESULTS, [position, MATCH_FINISHED, limit])
        if not rows:
            return None, 0
        _relaxed_commit()
        with _without_cycle_collection():
            handle(rows)
        return rows[-1][0], len(rows)

    return feed.consume_step(consumer, step)


def consume(consumer: str = CONSUMER, limit: int = 5000) -> int:
    """Rate everything the feed has settled; returns how many match_finished events were read."""
    total = 0
    while True:
        n = consume_batch(consumer, limit)
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


def _stored_rows(up_to: int, chunk: int = 5000) -> Iterator[list[ResultRow]]:
    position = 0
    while True:
        rows = _rows(_STORED_RESULTS, [position, up_to, MATCH_FINISHED, chunk])
        if not rows:
            return
        yield rows
        position = rows[-1][0]


def _stored_ratings() -> dict[tuple[str, str], tuple[float, float, float, int]]:
    return {
        (pool, player): (mu, sigma, elo, games)
        for pool, player, mu, sigma, elo, games in Rating.objects.values_list(
            "pool", "player", "mu", "sigma", "elo", "games"
        )
    }


def _differences(
    stored: dict[tuple[str, str], tuple[float, float, float, int]], book: ratings.Book
) -> list[str]:
    computed = {key: (s.mu, s.sigma, s.elo, s.games) for key, s in book.skills.items()}
    diffs = []
    for key in sorted(stored.keys() | computed.keys()):
        if stored.get(key) != computed.get(key):
            diffs.append(
                f"{key[0]} {key[1]}: stored {stored.get(key)}, rebuilt {computed.get(key)}"
            )
    return diffs


def rebuild(*, write: bool = True, consumer: str = CONSUMER, chunk: int = 5000) -> Rebuilt:
    """Recompute every rating from the stored events up to the consumer's checkpoint.

    Returns how the recomputed ratings differ from the stored ones (they must
    not); if ``write``, the stored ratings and history are replaced with them.
    """
    with transaction.atomic():
        # The consumer's lock, then the global one, in the order the consumer takes them
        # (the other order could deadlock with it): its checkpoint stays put meanwhile.
        with connection.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", [zlib.crc32(consumer.encode())])
        _lock()
        up_to = feed.checkpoint(consumer)
        stored = _stored_ratings()
        if write:
            with connection.cursor() as cur:
                cur.execute("TRUNCATE tournaments_ratinghistory, tournaments_rating")
        _index_plans()
        book = ratings.Book()
        count = history = 0
        seen: set[str] = set()
        for rows in _stored_rows(up_to, chunk):
            with _without_cycle_collection():
                found = results(rows, skip_rated=False, seen=seen)
                count += len(found)
                if write:
                    history += rate_and_write(book, found)
                else:
                    history += sum(len(book.apply(result)) for result in found)
        differences = _differences(stored, book)
    return Rebuilt(count, len(book.skills), history, differences)
