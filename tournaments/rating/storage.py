"""Where the ratings read model meets Postgres: every statement the feed's consumer and the
rebuild run (tournaments.rating.rating_feed tells what they do with them).

* reading results: one round trip a batch reads the settled ``match_finished`` events with
  everything the ratings need (:func:`settled_results`; the rebuild's :func:`stored_results`);
* writing: the history rows go down a binary ``COPY`` while the results are rated
  (:class:`HistoryCopy`), then one upsert writes the ratings they moved (:func:`upsert`);
* the transaction's terms: the one lock every writer of ratings takes, lookups planned as
  lookups, a commit that does not wait for the disk.

Every statement goes through psycopg's own connection under Django's (the same transaction):
the rows are read and written in bulk, and the ORM's per-row objects cost more than rating.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import orjson
from django.db import connection
from psycopg.copy import QueuedLibpqWriter

from games.engine.platform_events import MATCH_FINISHED
from replays import feed
from tournaments.rating import keys, ratings
from tournaments.rating.models import Rating

_LOCK = zlib.crc32(b"tournaments.rating.ratings")


def _raw() -> Any:
    connection.ensure_connection()
    raw = connection.connection
    assert raw is not None
    return raw


# The transaction's terms


def lock_ratings() -> None:
    """Take the lock that serialises every writer of ratings (consumers, a rebuild) until the
    transaction ends."""
    with connection.cursor() as cur:
        cur.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK])


def plan_as_lookups() -> None:
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


def commit_without_waiting_for_disk() -> None:
    """Commit this transaction without waiting for its WAL to reach the disk.

    The ratings are a read model: a server crash may lose the last few batches, but
    their checkpoint moves are lost with them (same transaction), so they are rated
    again from the events. What a crash cannot do is leave half a batch.
    """
    with connection.cursor() as cur:
        cur.execute("SET LOCAL synchronous_commit TO OFF")


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
# A compacted match's result is read from the archive's whole copy of it (replays/archive.py):
# each read is the hot events and the archived ones, merged in position order.
_RESULT_EVENT = (
    "position, stream_id, schema_version, (payload -> 'outcome' -> 'ranks')::text AS ranks"
)
_ARCHIVED = (
    f"SELECT {_RESULT_EVENT} FROM replays_archived_event"  # noqa: S608 (constant SQL)
    " WHERE position > %s{up_to} AND event_type = %s ORDER BY position LIMIT %s"
)
_SETTLED_RESULTS = _RESULT_COLUMNS.format(
    events=f"({feed.settled(_RESULT_EVENT, of_type=True)}) UNION ALL"
    f" ({_ARCHIVED.format(up_to='')}) ORDER BY position LIMIT %s"
)
# The rebuild's read: the same, up to a position (the consumer's checkpoint) and unfenced.
_STORED_RESULTS = _RESULT_COLUMNS.format(
    events=f"(SELECT {_RESULT_EVENT} FROM replays_event"  # noqa: S608 (constant SQL)
    " WHERE position > %s AND position <= %s AND event_type = %s ORDER BY position LIMIT %s)"
    f" UNION ALL ({_ARCHIVED.format(up_to=' AND position <= %s')}) ORDER BY position LIMIT %s"
)
ResultRow = tuple[
    int, str, int, str | None, str | None, int | None, int | None, str | None, bool | None
]
"""position, match id, schema version, ranks (JSON), game, ladder, season, players in seat
order (comma-separated "v:<version id>" or "builtin:<name>", and names are identifiers; None
without a rated match or seats), rated already (None without a rated match)?"""


def _rows(sql: str, params: Sequence[Any]) -> list[ResultRow]:
    with _raw().cursor() as cur:
        cur.execute(sql, params)
        return cur.fetchall()  # type: ignore[no-any-return]


def settled_results(after: int, limit: int) -> list[ResultRow]:
    """The next ``limit`` match_finished events after ``after`` that the feed has settled."""
    return _rows(
        _SETTLED_RESULTS, [after, MATCH_FINISHED, limit, after, MATCH_FINISHED, limit, limit]
    )


def stored_results(up_to: int, chunk: int) -> Iterator[list[ResultRow]]:
    """Every stored match_finished event up to position ``up_to``, ``chunk`` at a time."""
    position = 0
    while True:
        rows = _rows(_STORED_RESULTS, [*[position, up_to, MATCH_FINISHED, chunk] * 2, chunk])
        if not rows:
            return
        yield rows
        position = rows[-1][0]


def payload(position: int) -> Any:
    """The whole payload of the event at ``position`` (an older one, to upcast)."""
    with _raw().cursor() as cur:
        cur.execute(
            "SELECT payload::text FROM replays_event WHERE position = %s UNION ALL"
            " SELECT payload::text FROM replays_archived_event WHERE position = %s",
            [position, position],
        )
        (text,) = cur.fetchone()
    return orjson.loads(text)


def skills_of(found: Iterable[ratings.Result]) -> dict[tuple[str, str], ratings.Skill]:
    """The stored skills of the results' players (their earlier versions too), by (pool, player)."""
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


def stored_ratings() -> dict[tuple[str, str], tuple[float, float, float, int]]:
    """Every stored rating's (mu, sigma, elo, games), by (pool, player)."""
    return {
        (pool, player): (mu, sigma, elo, games)
        for pool, player, mu, sigma, elo, games in Rating.objects.values_list(
            "pool", "player", "mu", "sigma", "elo", "games"
        )
    }


# Writing ratings


def _ids(pool: str, player: str) -> tuple[int | None, int | None, int | None, str]:
    """(ladder, season, bot version, builtin) of a rating row."""
    kind, _, ident = pool.partition(":")
    vid = keys.version_id(player)
    return (
        int(ident) if kind == "ladder" else None,
        int(ident) if kind == "season" else None,
        vid,
        "" if vid is not None else player.removeprefix("builtin:"),
    )


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


def upsert(
    skills: Mapping[tuple[str, str], ratings.Skill], touched: Iterable[tuple[str, str]]
) -> None:
    """Upsert the touched ratings in one statement, new rows in ``touched``'s order.

    A new row's id is the ladder's last tie-break (tournaments.rating.ladder_order: the order
    players were first rated), so ``touched`` comes in the order the results rated them, never
    sorted by key: a private bot's key must not decide its place among equals, and the
    rebuild, whose batches need not be the consumer's, gives the same order.
    """
    columns: list[list[Any]] = [[] for _ in range(13)]
    for pool, player in touched:
        skill = skills[(pool, player)]
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


def truncate() -> None:
    """Empty the read model (the rebuild writes it again from the events)."""
    with connection.cursor() as cur:
        cur.execute("TRUNCATE tournaments_ratinghistory, tournaments_rating")


# The history goes to the server in COPY's binary format: packing eight doubles is ten
# times cheaper than formatting them as text, and keeps every bit (the rebuild compares).
_HISTORY_COPY = (
    "COPY tournaments_ratinghistory (match_id, position, pool, player, bot_version_id, builtin,"
    " rank, mu_before, sigma_before, mu_after, sigma_after, rating_before, rating_after,"
    " elo_before, elo_after) FROM STDIN (FORMAT binary)"
)
_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
_COPY_TRAILER = struct.pack(">h", -1)
_ROW_START = struct.Struct(">hi16siq")  # 15 fields; match_id uuid; position bigint
_ROW_END = struct.Struct(">ih" + "id" * 8)  # rank smallint; mu, sigma, rating, elo before/after
_NULL_FIELD = struct.pack(">i", -1)
_CHUNK = 500
"""Results packed between two writes to the server: COPY stores one chunk while the next is rated."""


def _text_field(text: str) -> bytes:
    data = text.encode()
    return struct.pack(">i", len(data)) + data


def _player_fields(player: str) -> bytes:
    """The history row's player, bot version and built-in name, as COPY binary fields."""
    vid = keys.version_id(player)
    if vid is None:
        return _text_field(player) + _NULL_FIELD + _text_field(player.removeprefix("builtin:"))
    return _text_field(player) + struct.pack(">iq", 8, vid) + _text_field("")


class HistoryCopy:
    """History rows on their way down an open ``COPY ... (FORMAT binary)``.

    A writer thread hands each chunk to the connection, so the database stores one chunk
    while Python rates the next; the fields each player and pool always has are packed once.
    ``touched`` is every (pool, player) a row was written for, in the order first written.
    """

    def __init__(self, copy: Any) -> None:
        self.copy = copy
        self.players: dict[str, bytes] = {}
        self.pools: dict[str, bytes] = {}
        self.pending: list[bytes] = []
        self.touched: dict[tuple[str, str], None] = {}  # ordered: a set is not
        self.rows = 0

    def add(self, match: str, position: int, changes: Sequence[ratings.Change]) -> None:
        """The rows of one rated result (none if it moved no rating)."""
        if not changes:
            return
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
            self.touched[(c.pool, c.player)] = None
        self.pending.append(b"".join(parts))
        self.rows += len(changes)
        if len(self.pending) >= _CHUNK:
            self.copy.write(b"".join(self.pending))
            self.pending = []

    def end(self) -> None:
        self.pending.append(_COPY_TRAILER)
        self.copy.write(b"".join(self.pending))
        self.pending = []


@contextmanager
def history_copy() -> Iterator[HistoryCopy]:
    """Open the history's COPY; it ends, and the server has every row, when the block does."""
    with _raw().cursor() as cur, cur.copy(_HISTORY_COPY, writer=QueuedLibpqWriter(cur)) as copy:
        copy.write(_COPY_HEADER)
        history = HistoryCopy(copy)
        yield history
        history.end()
