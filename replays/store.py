"""The event store's public API: ``append`` a batch to a stream, ``read`` it back.

This module is the only code that writes events. A batch is written with one
``COPY`` statement, so it costs one round trip and is atomic on its own; inside
an outer transaction (the match runner writes a match's result in the same
transaction as its final event) it joins that transaction. Conflicts are
detected by the database, never by a read-then-write check: a stale writer
hits the unique (stream, version) constraint, and a writer ahead of the stream
hits the gap trigger (see migrations/0002_append_only.py). An ``Appender`` is
the same append spread over time: its rows go down an open COPY while the
writer (the match runner) is still producing them.

A finished stream may be compacted into the archive (replays/archive.py): ``read``
and ``current_version`` answer from the hot table and the archive alike. An append
after an archived stream continues it; a stale one is a conflict, and so is a
retry of a batch that has been archived since (its events are no longer looked up
by id).
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, NoReturn

import orjson
import psycopg
from django.db import connection, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.dispatch import Signal
from psycopg.types.json import JsonbLoader
from uuid_utils import uuid7 as fast_uuid7
from uuid_utils.compat import uuid7

from replays import archive
from replays.upcasting import upcast

if TYPE_CHECKING:
    from games.engine.types import Event as EngineEvent

Payload = dict[str, Any]

_COPY = (
    "COPY replays_event (event_id, stream_id, version, event_type, schema_version, payload, metadata)"
    " FROM STDIN"
)
_COLUMNS = "position, event_id, stream_id, version, event_type, schema_version, payload, metadata, recorded_at"


class ConcurrencyError(Exception):
    """The stream is not at the version the writer expected; nothing was written."""

    def __init__(self, stream_id: uuid.UUID, expected_version: int, reason: str) -> None:
        super().__init__(f"stream {stream_id}: expected version {expected_version}: {reason}")
        self.stream_id = stream_id
        self.expected_version = expected_version


@dataclass(frozen=True)
class NewEvent:
    """An event to append. ``event_id`` makes a retried append idempotent."""

    type: str
    payload: Payload
    metadata: Payload = field(default_factory=dict)
    schema_version: int = 1
    event_id: uuid.UUID = field(default_factory=uuid7)
    """Time-ordered (UUIDv7), so that the unique index grows at its end like the positions."""

    @classmethod
    def from_engine(cls, ev: EngineEvent, *, engine_version: str, **metadata: Any) -> NewEvent:
        """Wrap an engine event; its visibility and actor go to the metadata."""
        return cls(
            type=ev["type"],
            payload=ev["payload"],
            schema_version=ev.get("schema_version", 1),
            metadata={**engine_metadata(ev, engine_version), **metadata},
        )


def engine_metadata(ev: EngineEvent, engine_version: str) -> Payload:
    """What an engine event keeps in the metadata column: who acted, who may see it, the engine."""
    return {
        "actor": ev["actor"],
        "visible_to": ev["visible_to"],
        "redacted": ev["redacted"],
        "engine": engine_version,
    }


@dataclass(frozen=True)
class StoredEvent:
    """An event as read back, with its payload upcast to the current schema."""

    position: int
    event_id: uuid.UUID
    stream_id: uuid.UUID
    version: int
    type: str
    schema_version: int
    payload: Payload
    metadata: Payload
    recorded_at: datetime

    def as_engine_event(self) -> EngineEvent:
        """The event in the shape the rules engines fold."""
        meta = self.metadata
        return {
            "type": self.type,
            "actor": meta.get("actor"),
            "payload": self.payload,
            "visible_to": meta.get("visible_to"),
            "redacted": meta.get("redacted"),
        }


def _copy_json(value: Mapping[str, Any]) -> bytes:
    # orjson escapes every control character inside strings, so a backslash is the only
    # byte of its output that COPY's text format needs escaped.
    try:
        # Without OPT_NON_STR_KEYS orjson encodes twice as fast; the option changes nothing
        # for string keys, so only a payload keyed by numbers pays for it.
        encoded = orjson.dumps(value)
    except TypeError:
        encoded = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    return encoded.replace(b"\\", b"\\\\")


_TEXT_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


@functools.lru_cache(maxsize=1024)
def _copy_text(value: str) -> bytes:
    # Cached: the values are event types, a few dozen per game.
    return value.translate(_TEXT_ESCAPES).encode()


def copy_stream(stream_id: uuid.UUID) -> bytes:
    """The stream id as ``copy_row`` wants it, encoded once per append."""
    return stream_id.hex.encode()


def _line(
    event_id: str,
    stream: bytes,
    version: int,
    event_type: str,
    schema_version: int,
    payload: Mapping[str, Any],
    metadata: Mapping[str, Any],
) -> bytes:
    """One row of COPY's text format, in the column order of ``_COPY``."""
    return b"%s\t%s\t%d\t%s\t%d\t%s\t%s\n" % (
        event_id.encode(),
        stream,
        version,
        _copy_text(event_type),
        schema_version,
        _copy_json(payload),
        _copy_json(metadata),
    )


def copy_row(stream: bytes, version: int, ev: NewEvent) -> bytes:
    """One event as a line of COPY's text format."""
    # bytes.hex() is three times as fast as the stdlib UUID's hex (a format of its integer).
    return _line(
        ev.event_id.bytes.hex(),
        stream,
        version,
        ev.type,
        ev.schema_version,
        ev.payload,
        ev.metadata,
    )


def engine_copy_row(stream: bytes, version: int, ev: EngineEvent, engine_version: str) -> bytes:
    """``copy_row`` of ``NewEvent.from_engine(ev, engine_version=...)``, without the NewEvent.

    The match runner encodes every event of every match: building the frozen
    NewEvent and its stdlib UUID cost more than the encoding itself.
    """
    return _line(
        fast_uuid7().hex,
        stream,
        version,
        ev["type"],
        ev.get("schema_version", 1),
        ev["payload"],
        engine_metadata(ev, engine_version),
    )


def _copy_lines(stream_id: uuid.UUID, events: Sequence[NewEvent], after_version: int) -> bytes:
    stream = copy_stream(stream_id)
    return b"".join(
        [copy_row(stream, version, ev) for version, ev in enumerate(events, after_version + 1)]
    )


stored = Signal()
"""Sent once the transaction that appended events commits, with ``stream_id`` and ``types`` (the
types appended). It only wakes read models: what they read is still the feed (replays/feed.py),
so a lost signal delays them and never changes what they compute."""


def _announce(stream_id: uuid.UUID, events: Sequence[NewEvent]) -> None:
    _announce_types(stream_id, frozenset(event.type for event in events))


def _announce_types(stream_id: uuid.UUID, types: frozenset[str]) -> None:
    transaction.on_commit(lambda: stored.send(sender=None, stream_id=stream_id, types=types))


def append(
    stream_id: uuid.UUID,
    events: Sequence[NewEvent],
    expected_version: int,
    *,
    savepoint: bool = True,
) -> int:
    """Append ``events`` after ``expected_version`` and return the stream's new version.

    Raises ConcurrencyError if the stream is not at ``expected_version``. A retry of a
    batch that was already written (same event ids at the same versions) returns the
    same new version without writing anything. Inside an outer transaction the COPY
    runs in a savepoint so that the caller can go on after a conflict; a caller that
    rolls back on any conflict anyway passes ``savepoint=False`` and saves two round
    trips (the idempotency check is then not possible, and a conflict is reported as such).
    """
    if not events:
        return expected_version
    if connection.in_atomic_block and not savepoint:
        try:
            _copy(stream_id, events, expected_version)
        except (psycopg.errors.UniqueViolation, psycopg.errors.RaiseException) as exc:
            raise ConcurrencyError(stream_id, expected_version, str(exc).splitlines()[0]) from None
        _announce(stream_id, events)
        return expected_version + len(events)
    try:
        if connection.in_atomic_block:
            with transaction.atomic(savepoint=True):
                _copy(stream_id, events, expected_version)
        else:
            _copy(stream_id, events, expected_version)  # one statement: its own transaction
    except psycopg.errors.UniqueViolation:
        if _already_written(stream_id, events, expected_version):
            return expected_version + len(events)
        raise ConcurrencyError(
            stream_id, expected_version, "another writer got there first"
        ) from None
    except psycopg.errors.RaiseException as exc:
        _raise_gap(stream_id, expected_version, exc)
    _announce(stream_id, events)
    return expected_version + len(events)


def _raise_gap(stream_id: uuid.UUID, expected_version: int, exc: psycopg.Error) -> NoReturn:
    if exc.diag.message_hint != "backroom:gap":
        raise exc
    raise ConcurrencyError(
        stream_id, expected_version, f"the stream is at {current_version(stream_id)}"
    ) from None


def _copy(stream_id: uuid.UUID, events: Sequence[NewEvent], expected_version: int) -> None:
    connection.ensure_connection()
    raw = connection.connection
    assert raw is not None
    rows = _copy_lines(stream_id, events, expected_version)
    with raw.cursor() as cur, cur.copy(_COPY) as copy:
        copy.write(rows)


SEND_AT = 8192
"""Bytes of rows an Appender gathers before it sends them down its COPY."""


class Appender:
    """One append whose events reach the database while the writer is still producing them.

    ``add`` sends events down an open COPY as they come, so Postgres parses and
    checks them while the match runner computes the next ones; ``commit`` ends the
    COPY, which then commits (or, inside an outer transaction, releases its
    savepoint), and returns the stream's new version. Nothing is durable before
    ``commit``, and ``abort`` (or a crash) writes nothing. Conflicts are those of
    ``append`` and surface at ``commit`` as ConcurrencyError; an idempotent retry is
    ``append``'s business only.

    While the COPY is open its connection belongs to it: any other query on the
    same connection would wait for the COPY forever, so the owner commits or
    aborts before it touches the database again.
    """

    def __init__(self, stream_id: uuid.UUID, expected_version: int) -> None:
        self.stream_id, self._stream = stream_id, copy_stream(stream_id)
        self.expected_version = self.version = expected_version
        self._open: _OpenCopy | None = None
        self._buffer = bytearray()
        self._savepoint: str | None = None
        self._types: set[str] = set()

    @property
    def is_open(self) -> bool:
        return self._open is not None

    def add(self, events: Sequence[NewEvent]) -> None:
        self._types.update(event.type for event in events)
        self._send(_copy_lines(self.stream_id, events, self.version), len(events))

    def add_engine_events(self, events: Sequence[EngineEvent], engine_version: str) -> None:
        """``add`` of the engine's events, as NewEvent.from_engine would wrap them."""
        stream = self._stream
        self._types.update(ev["type"] for ev in events)
        rows = b"".join(
            [
                engine_copy_row(stream, version, ev, engine_version)
                for version, ev in enumerate(events, start=self.version + 1)
            ]
        )
        self._send(rows, len(events))

    def _send(self, rows: bytes, count: int) -> None:
        self._buffer += rows
        self.version += count
        # A write per decision cost more than the COPY saved; libpq sends 8 kB at a time anyway.
        if len(self._buffer) >= SEND_AT:
            self._write()

    def _write(self) -> None:
        if self._open is None:
            self._start()
        assert self._open is not None
        rows, self._buffer = self._buffer, bytearray()
        try:
            self._open.copy.write(rows)
        except psycopg.Error:
            self.commit()  # ends the COPY, raising the server's reason (a conflict as such)
            raise

    def commit(self) -> int:
        if self._buffer:
            self._write()
        if self._open is None:
            return self.version
        open_copy, self._open = self._open, None
        try:
            open_copy.close(None)
        except (psycopg.errors.UniqueViolation, psycopg.errors.RaiseException) as exc:
            self._end_savepoint(commit=False)
            if isinstance(exc, psycopg.errors.RaiseException):
                _raise_gap(self.stream_id, self.expected_version, exc)
            raise ConcurrencyError(
                self.stream_id, self.expected_version, "another writer got there first"
            ) from None
        self._end_savepoint(commit=True)
        _announce_types(self.stream_id, frozenset(self._types))
        self._types = set()
        return self.version

    def abort(self) -> None:
        """Cancel the open COPY, if any: nothing of it is written."""
        self._buffer, self._types = bytearray(), set()
        if self._open is None:
            return
        open_copy, self._open = self._open, None
        open_copy.close(_Aborted("append aborted by its writer"))
        self._end_savepoint(commit=False)

    def _start(self) -> None:
        connection.ensure_connection()
        if connection.in_atomic_block:
            self._savepoint = transaction.savepoint()
        raw = connection.connection
        assert raw is not None
        self._open = _OpenCopy(raw.cursor())

    def _end_savepoint(self, *, commit: bool) -> None:
        if self._savepoint is None:
            return
        sid, self._savepoint = self._savepoint, None
        if commit:
            transaction.savepoint_commit(sid)
        else:
            transaction.savepoint_rollback(sid)


class _OpenCopy:
    """A COPY left open between calls (psycopg offers it as a with-block)."""

    def __init__(self, cursor: psycopg.Cursor[Any]) -> None:
        self.cursor = cursor
        self.context: AbstractContextManager[psycopg.Copy] = cursor.copy(_COPY)
        self.copy = self.context.__enter__()

    def close(self, error: BaseException | None) -> None:
        """End the COPY: sent whole if ``error`` is None, else cancelled with it as the reason."""
        try:
            self.context.__exit__(type(error) if error else None, error, None)
        finally:
            self.cursor.close()


class _Aborted(Exception):
    """Sent to the server as the reason of a cancelled COPY."""


def _already_written(
    stream_id: uuid.UUID, events: Sequence[NewEvent], expected_version: int
) -> bool:
    ids = [ev.event_id for ev in events]
    with connection.cursor() as cur:
        cur.execute(
            "SELECT event_id, stream_id, version FROM replays_event WHERE event_id = ANY(%s)", [ids]
        )
        found = {row[0]: (row[1], row[2]) for row in cur.fetchall()}
    return all(
        found.get(ev.event_id) == (stream_id, expected_version + offset)
        for offset, ev in enumerate(events, start=1)
    )


# One statement reads a stream's hot rows and, where they do not reach back to the first
# version asked for, its archive (the document, after the rows: columns 10-12). One snapshot
# sees both, so a read is never torn by a compaction committing in between (compaction
# writes the archive and removes the hot rows in one transaction: replays/archive.py), and
# an archived read costs the hot path's one round trip.
_READ = (
    f"(SELECT {_COLUMNS}, NULL::bytea, NULL::bigint, NULL::text FROM replays_event"  # noqa: S608 (constant column names; values are bound parameters)
    " WHERE stream_id = %s AND version >= %s AND version <= %s ORDER BY version)"
    " UNION ALL (SELECT NULL::bigint, NULL::uuid, NULL::uuid, NULL::integer, NULL::varchar,"
    " NULL::smallint, NULL::jsonb, NULL::jsonb, NULL::timestamptz, a.document, d.id, d.digest"
    " FROM replays_archive a JOIN replays_archive_dictionary d ON d.id = a.dictionary_id"
    " WHERE a.stream_id = %s AND a.last_version >= %s)"
)
_LAST = 2**31 - 1
"""Above every version (an integer column)."""


def read(
    stream_id: uuid.UUID, from_version: int = 1, to_version: int | None = None
) -> list[StoredEvent]:
    """Events of the stream from ``from_version`` to ``to_version`` (inclusive), in order,
    from the hot table or the stream's archive alike."""
    last = _LAST if to_version is None else to_version
    # Immutable rows: a replica may serve them (the feed's reads stay on the primary, in the
    # transaction of the read model they feed).
    rows = _rows(_READ, [stream_id, from_version, last, stream_id, from_version], archive.reading())
    hot = [_stored(row[:9]) for row in rows if row[9] is None]
    # Postgres appends a UNION ALL's branches in order, but SQL promises no order without an
    # outer ORDER BY (which would sort the hot path's rows again): sorting sorted rows is cheap.
    hot.sort(key=_version)
    if len(hot) == len(rows):
        return hot
    [(*_, document, dictionary_id, digest)] = [row for row in rows if row[9] is not None]
    # A stream archived with its hot rows kept (their partition goes whole later:
    # replays/archive.py) has the same events in both: the archive gives those before the hot.
    before_hot = hot[0].version - 1 if hot else to_version
    archived = archive.decoded(document, dictionary_id, digest, from_version, before_hot)
    return [_archived(stream_id, row) for row in archived] + hot


def _version(event: StoredEvent) -> int:
    return event.version


def current_version(stream_id: uuid.UUID) -> int:
    """The stream's last version; 0 for a stream with no events."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT coalesce(max(version), 0) FROM replays_event WHERE stream_id = %s", [stream_id]
        )
        row = cur.fetchone()
    hot = int(row[0]) if row else 0
    return hot or archive.last_version(stream_id)


class _OrjsonbLoader(JsonbLoader):
    """jsonb parsed by orjson: several times faster than the standard library on payloads,
    and reading events is most of what a replay costs."""

    def load(self, data: Any) -> Any:
        return orjson.loads(data)  # takes the memoryview as it is: no copy


def _fetch(sql: str, params: Sequence[Any]) -> list[StoredEvent]:
    return [_stored(row) for row in _rows(sql, params)]


def _rows(
    sql: str, params: Sequence[Any], on: BaseDatabaseWrapper = connection
) -> list[tuple[Any, ...]]:
    on.ensure_connection()
    raw = on.connection
    assert raw is not None
    with raw.cursor() as cur:
        # Django registers a jsonb loader that leaves text for its JSONField; parse here.
        cur.adapters.register_loader("jsonb", _OrjsonbLoader)
        cur.execute(sql, params)
        rows: list[tuple[Any, ...]] = cur.fetchall()
    return rows


def _stored(row: Sequence[Any]) -> StoredEvent:
    position, event_id, stream_id, version, event_type, schema_version, payload, metadata, at = row
    schema_version, payload = upcast(event_type, schema_version, payload)
    return StoredEvent(
        position=position,
        event_id=event_id,
        stream_id=stream_id,
        version=version,
        type=event_type,
        schema_version=schema_version,
        payload=payload,
        metadata=metadata,
        recorded_at=at,
    )


def _archived(stream_id: uuid.UUID, row: archive.Row) -> StoredEvent:
    """An archived row read as a stored one: its JSON and time decoded as Postgres returns them."""
    position, event_id, version, event_type, schema_version, payload, metadata, at = row
    return _stored(
        (
            position,
            event_id,
            stream_id,
            version,
            event_type,
            schema_version,
            orjson.loads(payload),
            orjson.loads(metadata),
            archive.recorded_at(at),
        )
    )
