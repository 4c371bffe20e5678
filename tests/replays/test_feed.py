"""The global feed never skips an event committed late by a concurrent writer."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest
from django.db import connection

from replays import feed, store
from replays.store import NewEvent, StoredEvent
from tests.support.processes import wait_until

pytestmark = pytest.mark.django_db(transaction=True)

INSERT = (
    "INSERT INTO replays_event (event_id, stream_id, version, event_type, schema_version, payload, metadata)"
    " VALUES (%s, %s, 1, 'late', 1, '{}', '{}') RETURNING position"
)


def consume_until(consumer: str, seen: list[StoredEvent], count: int, limit: int = 1000) -> None:
    """Consume until ``count`` events are seen: any transaction open anywhere on the server
    (another test run, a worker) holds the fence back for a moment, by design, and a bench's
    bulk fill for as long as it writes: 15 s failed a fresh-clone run beside such benches."""

    def all_seen() -> bool:
        feed.consume(consumer, seen.extend, limit=limit)
        return len(seen) >= count

    # 90 s: a bound on failing only, a passing run waits for the events.
    wait_until(all_seen, 90, f"{count} events", seen=lambda: len(seen))


@pytest.fixture
def writer_connections() -> Iterator[tuple[psycopg.Connection, psycopg.Connection]]:
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    a, b = psycopg.connect(**params), psycopg.connect(**params)
    yield a, b
    a.close()
    b.close()


def test_a_lower_position_committed_last_is_not_skipped(
    writer_connections: tuple[psycopg.Connection, psycopg.Connection],
) -> None:
    early, late = writer_connections
    start = feed.checkpoint("test-reader")
    early_stream, late_stream = uuid.uuid4(), uuid.uuid4()

    early_position = early.execute(INSERT, [uuid.uuid4(), early_stream]).fetchone()[0]  # type: ignore[index]
    late_position = late.execute(INSERT, [uuid.uuid4(), late_stream]).fetchone()[0]  # type: ignore[index]
    assert early_position < late_position
    late.commit()

    seen: list[StoredEvent] = []
    feed.consume("test-reader", seen.extend)
    assert seen == []  # the later position is held back while the earlier one may still commit

    early.commit()
    consume_until("test-reader", seen, 2)
    assert [e.position for e in seen] == [early_position, late_position]
    assert feed.checkpoint("test-reader") == late_position > start


def test_events_come_in_global_order_across_streams_and_each_once() -> None:
    a, b = uuid.uuid4(), uuid.uuid4()
    store.append(a, [NewEvent(type="x", payload={"i": 1})], 0)
    store.append(b, [NewEvent(type="x", payload={"i": 2})], 0)
    store.append(a, [NewEvent(type="x", payload={"i": 3})], 1)
    seen: list[StoredEvent] = []
    consume_until("ordered", seen, 3, limit=2)
    assert [e.payload["i"] for e in seen] == [1, 2, 3]
    assert feed.consume("ordered", seen.extend) == 0


def test_a_failing_read_model_does_not_advance_the_checkpoint() -> None:
    store.append(uuid.uuid4(), [NewEvent(type="x", payload={})], 0)

    def broken(events: list[StoredEvent]) -> None:
        raise RuntimeError("read model is down")

    def fails() -> bool:
        try:
            feed.consume("fragile", broken)
        except RuntimeError:
            return True
        return False  # the fence holds the event back for now

    wait_until(fails, 90, "the read model to be handed the event")
    assert feed.checkpoint("fragile") == 0
