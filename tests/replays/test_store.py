"""The event store's write path against the real Postgres."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest
from django.db import connection, connections, transaction

from replays import store
from replays.store import ConcurrencyError, NewEvent
from tests.factories import counted_events

pytestmark = pytest.mark.django_db


def test_batch_append_returns_new_version_and_reads_back_in_order() -> None:
    stream = uuid.uuid4()
    assert store.append(stream, counted_events(100), expected_version=0) == 100
    assert store.append(stream, counted_events(3, start=100), expected_version=100) == 103
    events = store.read(stream)
    assert [e.version for e in events] == list(range(1, 104))
    assert [e.payload["n"] for e in events] == list(range(103))
    assert store.current_version(stream) == 103


def test_payloads_keyed_by_numbers_are_stored_with_their_keys_as_strings() -> None:
    # The encoder tries orjson without OPT_NON_STR_KEYS first (twice as fast) and falls back.
    stream = uuid.uuid4()
    payload = {"by_seat": {0: 3, 1: "a\\b\tc"}, "note": "back\\slash"}
    by_number: dict[Any, Any] = {2: [1]}  # what an engine may put in, typed or not
    store.append(stream, [NewEvent(type="scored", payload=payload, metadata=by_number)], 0)
    [event] = store.read(stream)
    assert event.payload == {"by_seat": {"0": 3, "1": "a\\b\tc"}, "note": "back\\slash"}
    assert event.metadata == {"2": [1]}


def test_read_between_versions() -> None:
    stream = uuid.uuid4()
    store.append(stream, counted_events(10), expected_version=0)
    assert [e.version for e in store.read(stream, from_version=4, to_version=6)] == [4, 5, 6]


def test_stale_expected_version_is_a_conflict_and_writes_nothing() -> None:
    stream = uuid.uuid4()
    store.append(stream, counted_events(2), expected_version=0)
    with pytest.raises(ConcurrencyError, match="another writer"):
        store.append(stream, counted_events(5, start=50), expected_version=1)
    assert [e.payload["n"] for e in store.read(stream)] == [0, 1]


def test_expected_version_ahead_of_the_stream_is_a_conflict() -> None:
    stream = uuid.uuid4()
    store.append(stream, counted_events(2), expected_version=0)
    with pytest.raises(ConcurrencyError, match="the stream is at 2"):
        store.append(stream, counted_events(1), expected_version=5)
    assert store.current_version(stream) == 2


def test_retrying_the_same_batch_is_idempotent() -> None:
    stream = uuid.uuid4()
    events = counted_events(4)
    assert store.append(stream, events, expected_version=0) == 4
    assert store.append(stream, events, expected_version=0) == 4
    assert len(store.read(stream)) == 4


def test_reusing_event_ids_at_other_versions_is_a_conflict() -> None:
    stream = uuid.uuid4()
    events = counted_events(2)
    store.append(stream, events, expected_version=0)
    with pytest.raises(ConcurrencyError):
        store.append(stream, events, expected_version=2)


def test_append_joins_an_outer_transaction() -> None:
    stream = uuid.uuid4()
    with pytest.raises(RuntimeError), transaction.atomic():
        store.append(stream, counted_events(3), expected_version=0)
        raise RuntimeError("roll back")
    assert store.current_version(stream) == 0


def test_conflict_inside_an_outer_transaction_leaves_it_usable() -> None:
    stream = uuid.uuid4()
    store.append(stream, counted_events(1), expected_version=0)
    with transaction.atomic():
        with pytest.raises(ConcurrencyError):
            store.append(stream, counted_events(1), expected_version=0)
        store.append(stream, counted_events(1, start=7), expected_version=1)
    assert [e.payload["n"] for e in store.read(stream)] == [0, 7]


def test_metadata_carries_engine_visibility() -> None:
    stream = uuid.uuid4()
    engine_event = {
        "type": "cards_placed",
        "actor": 2,
        "payload": {"cards": ["NEG_01"]},
        "visible_to": [2],
        "redacted": {"count": 1},
    }
    store.append(stream, [NewEvent.from_engine(engine_event, engine_version="brexit/1")], 0)  # type: ignore[arg-type]
    (stored,) = store.read(stream)
    assert stored.metadata["engine"] == "brexit/1"
    assert stored.as_engine_event() == engine_event


@pytest.mark.django_db(transaction=True)
def test_concurrent_writers_with_the_same_expected_version_one_wins() -> None:
    stream = uuid.uuid4()
    barrier = threading.Barrier(4)
    results: list[str] = []

    def writer(i: int) -> None:
        try:
            barrier.wait()
            store.append(stream, counted_events(50, start=1000 * i), expected_version=0)
            results.append("ok")
        except ConcurrencyError:
            results.append("conflict")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["conflict", "conflict", "conflict", "ok"]
    events = store.read(stream)
    assert [e.version for e in events] == list(range(1, 51))
    assert len({e.payload["n"] // 1000 for e in events}) == 1  # all from one writer


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE replays_event SET event_type = 'tampered'",
        "DELETE FROM replays_event",
        "TRUNCATE replays_event",
    ],
)
def test_the_database_rejects_changes_to_events(sql: str) -> None:
    stream = uuid.uuid4()
    store.append(stream, counted_events(2), expected_version=0)
    with (
        pytest.raises(Exception, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cur,
    ):
        # The test database allows TRUNCATE for wiping between tests; production never does.
        cur.execute("SET LOCAL backroom.allow_event_truncate = 'off'")
        cur.execute(sql)
    assert [e.type for e in store.read(stream)] == ["counted", "counted"]


def test_the_orm_cannot_update_or_delete_events_either() -> None:
    from replays.models import Event

    stream = uuid.uuid4()
    store.append(stream, counted_events(1), expected_version=0)
    row = Event.objects.get(stream_id=stream)
    row.event_type = "tampered"
    with pytest.raises(Exception, match="append-only"), transaction.atomic():
        row.save()
    with pytest.raises(Exception, match="append-only"), transaction.atomic():
        Event.objects.filter(stream_id=stream).delete()
    assert Event.objects.get(stream_id=stream).event_type == "counted"
