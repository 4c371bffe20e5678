"""The event store's public API: ``append`` a batch to a stream, ``read`` it back.

This module is the only code that writes events. A batch is written with one
``COPY`` statement, so it costs one round trip and is atomic on its own; inside
an outer transaction (the match runner writes a match's result in the same
transaction as its final event) it joins that transaction. Conflicts are
detected by the database, never by a read-then-write check: a stale writer
hits the unique (stream, version) constraint, and a writer ahead of the stream
hits the gap trigger (see migrations/0002_append_only.py).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import orjson
import psycopg
from django.db import connection, transaction
from psycopg.types.json import JsonbLoader
from uuid_utils.compat import uuid7

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
            metadata={
                "actor": ev["actor"],
                "visible_to": ev["visible_to"],
                "redacted": ev["redacted"],
                "engine": engine_version,
                **metadata,
            },
        )


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


def _dumps(value: Mapping[str, Any]) -> str:
    # orjson: encoding the payloads cost as much as the COPY itself with the json module.
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


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
        if exc.diag.message_hint != "backroom:gap":
            raise
        raise ConcurrencyError(
            stream_id, expected_version, f"the stream is at {current_version(stream_id)}"
        ) from None
    return expected_version + len(events)


def _copy(stream_id: uuid.UUID, events: Sequence[NewEvent], expected_version: int) -> None:
    connection.ensure_connection()
    raw = connection.connection
    assert raw is not None
    with raw.cursor() as cur, cur.copy(_COPY) as copy:
        for offset, ev in enumerate(events, start=1):
            copy.write_row(
                (
                    ev.event_id,
                    stream_id,
                    expected_version + offset,
                    ev.type,
                    ev.schema_version,
                    _dumps(ev.payload),
                    _dumps(ev.metadata),
                )
            )


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


def read(
    stream_id: uuid.UUID, from_version: int = 1, to_version: int | None = None
) -> list[StoredEvent]:
    """Events of the stream from ``from_version`` to ``to_version`` (inclusive), in order."""
    sql = f"SELECT {_COLUMNS} FROM replays_event WHERE stream_id = %s AND version >= %s"
    params: list[Any] = [stream_id, from_version]
    if to_version is not None:
        sql += " AND version <= %s"
        params.append(to_version)
    return _fetch(sql + " ORDER BY version", params)


def current_version(stream_id: uuid.UUID) -> int:
    """The stream's last version; 0 for a stream with no events."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT coalesce(max(version), 0) FROM replays_event WHERE stream_id = %s", [stream_id]
        )
        row = cur.fetchone()
    return int(row[0]) if row else 0


def _fetch(sql: str, params: Sequence[Any]) -> list[StoredEvent]:
    connection.ensure_connection()
    raw = connection.connection
    assert raw is not None
    with raw.cursor() as cur:
        # Django registers a jsonb loader that leaves text for its JSONField; parse here.
        cur.adapters.register_loader("jsonb", JsonbLoader)
        cur.execute(sql, params)
        rows = cur.fetchall()
    return [_stored(row) for row in rows]


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
