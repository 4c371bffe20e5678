"""The archive: a finished stream compacted into one compressed document, kept in Postgres.

An event costs about 485 bytes in ``replays_event`` (heap, TOAST, indexes). A compacted
stream is one ``replays_archive`` row: its events laid out by column (positions, times and
event ids as deltas, the payloads and metadata as the text Postgres stores them) and
compressed with zstd and a dictionary trained on its game's matches.

``compact`` is the only way events leave the hot table, and it keeps the promise that no
event ever changes or disappears: in one transaction it encodes the stream's stored rows,
decodes the compressed document again and checks it gives exactly those rows, event by
event, byte for byte (payload and metadata as Postgres prints them); then it writes the
archive, deletes the hot rows through the trigger's one escape hatch (migrations/0004), and
decodes the stored document once more, as a reader will, against the same rows. ``rows`` is what
``replays.store.read`` falls back on when the hot table does not have a stream's versions.

With ``keep_hot`` the hot rows stay where they are: a past month's partition of the events
table (replays/partitions.py) is emptied whole instead, by ``release_partition``, once every
stream in it is archived, checked again against its rows, and visible to every reader.
"""

from __future__ import annotations

import hashlib
import struct
import threading
import time
import uuid
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import accumulate
from typing import Any

import orjson
import zstandard
from django.db import connection, connections, router, transaction
from django.db.backends.base.base import BaseDatabaseWrapper

from games.engine.platform_events import MATCH_FINISHED

FORMAT = b"BRA1"
"""The document's first bytes: its layout's name (a reader refuses any other)."""

KEPT_WHOLE = (MATCH_FINISHED,)
"""Types also kept uncompressed in ``replays_archived_event``: the ratings read every result
by its global position (tournaments/rating/storage.py)."""

LEVEL = 12
"""zstd level: 19 saved 3% more for five times the compaction time (bench archive)."""

DICTIONARY_BYTES = 64 * 1024
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

Row = tuple[int, uuid.UUID, int, str, int, str, str, int]
"""An event as archived: position, event id, version, type, schema version, payload and
metadata (JSON text as Postgres prints jsonb), recorded at (microseconds since the epoch)."""

_HOT_ROWS = """
SELECT position, event_id, version, event_type, schema_version, payload::text, metadata::text,
       (extract(epoch FROM recorded_at) * 1000000)::bigint
FROM replays_event WHERE stream_id = %s ORDER BY version
"""


class ArchiveError(Exception):
    """A stream that cannot be compacted, or a document that does not decode to its rows."""


# The document


def encode(rows: Sequence[Row]) -> bytes:
    """The stream's rows (versions 1..n, in order) as one uncompressed document."""
    kinds: dict[tuple[str, int], int] = {}
    kind_of = array("H", (kinds.setdefault((r[3], r[4]), len(kinds)) for r in rows))
    ids = [r[1].bytes for r in rows]
    header = orjson.dumps({"n": len(rows), "kinds": list(kinds)})
    return b"".join(
        [
            FORMAT,
            struct.pack("<I", len(header)),
            header,
            _deltas(r[0] for r in rows),
            _deltas(r[7] for r in rows),
            # A UUIDv7 starts with its millisecond: as deltas those bytes compress to almost
            # nothing; the other ten are random and stay ten.
            _deltas(int.from_bytes(i[:6]) for i in ids),
            kind_of.tobytes(),
            b"".join(i[6:] for i in ids),
            "\n".join(r[5] for r in rows).encode(),
            b"\n",
            "\n".join(r[6] for r in rows).encode(),
        ]
    )


def _deltas(values: Iterable[int]) -> bytes:
    previous, out = 0, array("q")
    for value in values:
        out.append(value - previous)
        previous = value
    return out.tobytes()


def decode(document: bytes, first: int = 1, last: int | None = None) -> list[Row]:
    """The rows of an uncompressed document (``encode``'s inverse), versions ``first`` to
    ``last`` (inclusive; None: to the end). Only those rows are built: a step of the
    viewer reads a few dozen events of a document of hundreds."""
    if document[:4] != FORMAT:
        raise ArchiveError(f"not an archived stream: starts with {document[:4]!r}")
    (size,) = struct.unpack_from("<I", document, 4)
    at = 8 + size
    header = orjson.loads(document[8:at])
    n: int = header["n"]
    kinds = [tuple(k) for k in header["kinds"]]
    lo, hi = max(first, 1) - 1, n if last is None else min(last, n)
    columns = []
    for _ in range(3):
        column = array("q")
        column.frombytes(document[at : at + 8 * hi])  # deltas: the sums need the ones before
        columns.append(list(accumulate(column)))
        at += 8 * n
    positions, recorded, stamps = columns
    kind_of = array("H")
    kind_of.frombytes(document[at : at + 2 * n])
    at += 2 * n
    tails = document[at : at + 10 * n]
    at += 10 * n
    lines = document[at:].split(b"\n")
    if len(lines) != 2 * n:
        raise ArchiveError(f"{len(lines)} lines of JSON for {n} events")
    return [
        (
            positions[i],
            uuid.UUID(bytes=stamps[i].to_bytes(6) + tails[10 * i : 10 * i + 10]),
            i + 1,
            kinds[kind_of[i]][0],
            kinds[kind_of[i]][1],
            lines[i].decode(),
            lines[n + i].decode(),
            recorded[i],
        )
        for i in range(lo, hi)
    ]


def recorded_at(micros: int) -> datetime:
    return _EPOCH + timedelta(microseconds=micros)


# Dictionaries


@dataclass(frozen=True)
class Dictionary:
    id: int
    digest: str
    data: zstandard.ZstdCompressionDict


_dictionaries: dict[str, zstandard.ZstdCompressionDict] = {}
_local = threading.local()


def reading() -> BaseDatabaseWrapper:
    """Where a read of stored events goes: the primary, unless the database router sends the
    reads of the request being served to a replica (config/replica.py: the site's and the API's
    read-only requests). Only for rows that never change once written (events, archives,
    dictionaries); what a writer reads before it writes (a stream's last version) stays on
    ``connection``."""
    from replays.models import Event  # the models need the app registry; this module does not

    return connections[router.db_for_read(Event)]


def _dictionary_data(dictionary_id: int, digest: str) -> zstandard.ZstdCompressionDict:
    # Cached by content digest: a dictionary never changes, but a test database reuses ids.
    found = _dictionaries.get(digest)
    if found is None:
        with reading().cursor() as cur:
            cur.execute(
                "SELECT content FROM replays_archive_dictionary WHERE id = %s", [dictionary_id]
            )
            (content,) = cur.fetchone()
        found = _dictionaries[digest] = zstandard.ZstdCompressionDict(bytes(content))
    return found


def _decompressor(digest: str, data: zstandard.ZstdCompressionDict) -> zstandard.ZstdDecompressor:
    # One per thread and dictionary: a decompressor loads its dictionary once, and is not
    # safe to share between threads.
    cache: dict[str, zstandard.ZstdDecompressor] = _local.__dict__.setdefault("dctx", {})
    dctx = cache.get(digest)
    if dctx is None:
        dctx = cache[digest] = zstandard.ZstdDecompressor(dict_data=data)
    return dctx


def train(game: str, samples: Sequence[Sequence[Row]]) -> Dictionary:
    """Train and store a dictionary for ``game`` on the rows of some of its streams."""
    # An event's payload and metadata a sample: they are most of a document's bytes.
    texts: list[bytes | bytearray | memoryview[int]] = [
        f"{r[5]}\n{r[6]}".encode() for rows in samples for r in rows
    ]
    if not texts:
        raise ArchiveError(f"no events of {game} to train a dictionary on")
    # zstd wants more sample bytes than dictionary bytes; a few matches give fewer.
    size = min(DICTIONARY_BYTES, max(1024, sum(map(len, texts)) // 8))
    data = zstandard.train_dictionary(size, texts, level=LEVEL)
    content = data.as_bytes()
    digest = hashlib.sha256(content).hexdigest()
    with connection.cursor() as cur:
        cur.execute(
            "INSERT INTO replays_archive_dictionary (game, content, digest) VALUES (%s, %s, %s)"
            " RETURNING id",
            [game, content, digest],
        )
        (dictionary_id,) = cur.fetchone()
    _dictionaries[digest] = data
    return Dictionary(dictionary_id, digest, data)


def dictionary(game: str) -> Dictionary | None:
    """The newest dictionary of ``game``, if any."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT id, digest FROM replays_archive_dictionary WHERE game = %s"
            " ORDER BY id DESC LIMIT 1",
            [game],
        )
        row = cur.fetchone()
    if row is None:
        return None
    return Dictionary(row[0], row[1], _dictionary_data(row[0], row[1]))


# Compaction


_HOT_ROWS_OF = """
SELECT stream_id, position, event_id, version, event_type, schema_version, payload::text,
       metadata::text, (extract(epoch FROM recorded_at) * 1000000)::bigint
FROM replays_event WHERE stream_id = ANY(%s) ORDER BY stream_id, version
"""


def hot_rows(stream_id: uuid.UUID) -> list[Row]:
    with connection.cursor() as cur:
        cur.execute(_HOT_ROWS, [stream_id])
        return [(p, e, v, t, s, pl, m, int(at)) for p, e, v, t, s, pl, m, at in cur.fetchall()]


def _hot_rows_of(
    stream_ids: Sequence[uuid.UUID], query: str = _HOT_ROWS_OF
) -> dict[uuid.UUID, list[Row]]:
    """The streams' hot rows by stream, in version order, as ``query`` selects them (a stream
    id, then a Row's columns)."""
    found: dict[uuid.UUID, list[Row]] = {stream: [] for stream in stream_ids}
    with connection.cursor() as cur:
        cur.execute(query, [list(stream_ids)])
        for stream, p, e, v, t, sv, pl, m, at in cur.fetchall():
            found[stream].append((p, e, v, t, sv, pl, m, int(at)))
    return found


def _check_archives(hot: dict[uuid.UUID, list[Row]], where: str = "") -> None:
    """Each stream's stored archive, decoded as a reader decodes it, gives exactly its rows in
    ``hot``, event by event, from their first version to the archive's end; ArchiveError
    naming the first stream that has no archive or whose archive differs."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT a.stream_id, a.document, d.id, d.digest FROM replays_archive a"
            " JOIN replays_archive_dictionary d ON d.id = a.dictionary_id"
            " WHERE a.stream_id = ANY(%s)",
            [list(hot)],
        )
        archives = {row[0]: (bytes(row[1]), row[2], row[3]) for row in cur.fetchall()}
    for stream, rows in hot.items():
        found = archives.get(stream)
        if found is None:
            raise ArchiveError(f"{where}stream {stream} has no archive")
        if decoded(*found, rows[0][2], None) != rows:
            raise ArchiveError(f"{where}stream {stream}'s archive differs from its hot rows")


def compact(stream_id: uuid.UUID, using: Dictionary) -> int:
    """``compact_many`` of one stream."""
    return compact_many([stream_id], using)


def compact_many(
    stream_ids: Sequence[uuid.UUID], using: Dictionary, *, keep_hot: bool = False
) -> int:
    """Archive the streams' stored events and remove their hot rows; returns how many events.

    Everything happens in one transaction, and nothing is removed unless each compressed
    document decodes to exactly its stream's stored rows, and decodes so again once stored
    (ArchiveError otherwise, and nothing is written). A stream's rows are its versions
    1..n, so an archive always starts at version 1. The caller chooses streams that are over
    (no more appends) and that every reader of the feed has passed. With ``keep_hot`` the
    hot rows stay: their partition is emptied whole once all of it is archived
    (``release_partition``) instead of row by row.
    """
    compressor = zstandard.ZstdCompressor(level=LEVEL, dict_data=using.data)
    decompressor = _decompressor(using.digest, using.data)
    with transaction.atomic():
        streams = _hot_rows_of(stream_ids)
        archives = []
        for stream_id, rows in streams.items():
            if not rows:
                raise ArchiveError(f"stream {stream_id} has no hot events")
            if [r[2] for r in rows] != list(range(1, len(rows) + 1)):
                raise ArchiveError(f"stream {stream_id}: versions are not 1..{len(rows)}")
            document = compressor.compress(encode(rows))
            if decode(decompressor.decompress(document)) != rows:
                raise ArchiveError(f"stream {stream_id}: its document does not decode to its rows")
            archives.append((stream_id, using.id, len(rows), rows[0][0], rows[-1][0], document))
        events = sum(len(rows) for rows in streams.values())
        with connection.cursor() as cur:
            cur.executemany(
                "INSERT INTO replays_archive (stream_id, dictionary_id, last_version,"
                " first_position, last_position, document) VALUES (%s, %s, %s, %s, %s, %s)",
                archives,
            )
            cur.execute(
                "INSERT INTO replays_archived_event (position, event_id, stream_id, version,"
                " event_type, schema_version, payload, metadata, recorded_at)"
                " SELECT position, event_id, stream_id, version, event_type, schema_version,"
                " payload, metadata, recorded_at FROM replays_event"
                " WHERE stream_id = ANY(%s) AND event_type = ANY(%s)",
                [list(streams), list(KEPT_WHOLE)],
            )
            removed = events
            if not keep_hot:
                # Only the rows read above: an archive covers versions 1..n of its stream.
                cur.execute("SET LOCAL backroom.compacting = on")
                cur.execute(
                    "DELETE FROM replays_event e USING replays_archive a"
                    " WHERE a.stream_id = ANY(%s) AND e.stream_id = a.stream_id"
                    " AND e.version <= a.last_version",
                    [list(streams)],
                )
                removed = cur.rowcount
                cur.execute("SET LOCAL backroom.compacting = off")
        if removed != events:
            raise ArchiveError(f"{removed} hot rows removed for {events} archived")
        # What readers will decode: the stored documents, through the reading path.
        _check_archives(streams)
    return events


# Partitions emptied whole

RELEASE_BATCH = 500
"""Streams of a partition verified against their archives per statement."""

_PARTITION_STREAMS = """
SELECT DISTINCT stream_id FROM {partition} WHERE stream_id > %s ORDER BY stream_id LIMIT %s
"""

_PARTITION_ROWS = """
SELECT stream_id, position, event_id, version, event_type, schema_version, payload::text,
       metadata::text, (extract(epoch FROM recorded_at) * 1000000)::bigint
FROM {partition} WHERE stream_id = ANY(%s) ORDER BY stream_id, version
"""

# Sessions whose snapshot is older than the newest archive of the partition's streams: such a
# snapshot does not see that archive, and would not see the emptied partition's rows either
# (TRUNCATE is not MVCC-safe: an older snapshot finds the partition empty). A replica's
# queries count through its walsender's xmin where it sends hot_standby_feedback.
_OLDER_SNAPSHOTS = """
SELECT count(*) FROM pg_stat_activity
WHERE pid <> pg_backend_pid() AND backend_xmin IS NOT NULL
  AND (datname = current_database() AND backend_type = 'client backend'
       OR backend_type = 'walsender')
  AND age(backend_xmin) >= (
      SELECT min(age(a.xmin)) FROM replays_archive a
      WHERE a.stream_id IN (SELECT stream_id FROM {partition}))
"""


def _partition(name: str) -> str:
    """The partition's name, quoted, if it is one of the events table's; else ArchiveError."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT quote_ident(c.relname) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
            " WHERE i.inhparent = 'replays_event'::regclass AND c.relname = %s",
            [name],
        )
        row = cur.fetchone()
    if row is None:
        raise ArchiveError(f"{name} is not a partition of replays_event")
    return str(row[0])


def fully_archived(name: str) -> bool:
    """The partition holds rows, and an archive covers every one of them."""
    partition = _partition(name)
    with connection.cursor() as cur:
        cur.execute(
            f"SELECT EXISTS (SELECT 1 FROM {partition}) AND NOT EXISTS ("  # noqa: S608 (a partition's quoted name)
            f" SELECT 1 FROM {partition} e WHERE NOT EXISTS ("
            " SELECT 1 FROM replays_archive a WHERE a.stream_id = e.stream_id"
            " AND e.version <= a.last_version))"
        )
        return bool(cur.fetchone()[0])


def verify_partition(name: str) -> int:
    """Check that every stream of the partition has an archive that decodes to exactly its
    hot rows there, event by event; returns how many hot rows (ArchiveError otherwise)."""
    partition, after, checked = _partition(name), uuid.UUID(int=0), 0
    while True:
        with connection.cursor() as cur:
            cur.execute(_PARTITION_STREAMS.format(partition=partition), [after, RELEASE_BATCH])
            streams = [row[0] for row in cur.fetchall()]
        if not streams:
            return checked
        hot = _hot_rows_of(streams, _PARTITION_ROWS.format(partition=partition))
        _check_archives(hot, f"{name}: ")
        checked += sum(len(rows) for rows in hot.values())
        after = streams[-1]


def release_partition(name: str, wait_seconds: float = 60.0) -> int:
    """Empty one partition of the events table whole, once every one of its rows is archived;
    returns how many hot rows went.

    The archives are verified against the rows first (``verify_partition``), then the
    database checks again, in the TRUNCATE's trigger, that an archive covers every row
    (migrations/0005); anything else refuses. Readers are never shown a gap: the TRUNCATE
    waits until no session's snapshot predates the archives (ArchiveError after
    ``wait_seconds``), so every read after it finds the events in their archive.
    """
    partition = _partition(name)
    rows = verify_partition(name)
    deadline = time.monotonic() + wait_seconds
    while True:
        with connection.cursor() as cur:
            # Inside a transaction Postgres would show the same pg_stat_activity every time.
            cur.execute("SELECT pg_stat_clear_snapshot()")
            cur.execute(_OLDER_SNAPSHOTS.format(partition=partition))
            (older,) = cur.fetchone()
        if not older:
            break
        if time.monotonic() > deadline:
            raise ArchiveError(f"{name}: {older} sessions still read from before its archives")
        time.sleep(0.05)  # polling other sessions' snapshots: nothing to wait on in Postgres
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("SET LOCAL backroom.compacting = on")
        cur.execute("SET LOCAL lock_timeout = '10s'")
        cur.execute(f"TRUNCATE {partition}")
    return rows


# Reading


def decoded(
    document: bytes, dictionary_id: int, digest: str, first: int, last: int | None
) -> list[Row]:
    """The rows of a compressed document (as stored, with its dictionary's id and digest),
    versions ``first`` to ``last`` (inclusive; None: to the end)."""
    data = _dictionary_data(dictionary_id, digest)
    return decode(_decompressor(digest, data).decompress(document), first, last)


def rows(stream_id: uuid.UUID, from_version: int, to_version: int | None) -> list[Row] | None:
    """The archived events of the stream between the versions (inclusive); None if the stream
    has no archive."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT a.document, d.id, d.digest FROM replays_archive a"
            " JOIN replays_archive_dictionary d ON d.id = a.dictionary_id"
            " WHERE a.stream_id = %s",
            [stream_id],
        )
        found = cur.fetchone()
    if found is None:
        return None
    return decoded(bytes(found[0]), found[1], found[2], from_version, to_version)


def last_version(stream_id: uuid.UUID) -> int:
    """The stream's last archived version; 0 if it has no archive."""
    with connection.cursor() as cur:
        cur.execute("SELECT last_version FROM replays_archive WHERE stream_id = %s", [stream_id])
        row = cur.fetchone()
    return int(row[0]) if row else 0


def archived(stream_ids: Iterable[uuid.UUID]) -> set[uuid.UUID]:
    """Which of the streams have an archive."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT stream_id FROM replays_archive WHERE stream_id = ANY(%s)", [list(stream_ids)]
        )
        return {row[0] for row in cur.fetchall()}


def parsed(row: Row) -> tuple[Any, Any]:
    """The row's payload and metadata as the hot path parses them."""
    return orjson.loads(row[5]), orjson.loads(row[6])
