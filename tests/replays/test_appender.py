"""Streamed appends (store.Appender) and the COPY text encoding both write paths share."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.db import connection, transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replays import store
from replays.store import Appender, ConcurrencyError, NewEvent
from tests.factories import counted_events

pytestmark = pytest.mark.django_db


def payloads(stream: uuid.UUID) -> list[Any]:
    return [e.payload["n"] for e in store.read(stream)]


def test_events_added_in_pieces_are_one_append_at_commit() -> None:
    stream = uuid.uuid4()
    appender = Appender(stream, 0)
    for start in range(0, 300, 30):  # more than SEND_AT bytes: the COPY opens on the way
        appender.add(counted_events(30, start=start))
    assert appender.is_open
    assert appender.commit() == 300
    assert payloads(stream) == list(range(300))
    assert [e.version for e in store.read(stream)] == list(range(1, 301))


def test_nothing_is_visible_before_commit() -> None:
    stream = uuid.uuid4()
    appender = Appender(stream, 0)
    appender.add(counted_events(5))
    assert store.current_version(stream) == 0  # still buffered: no query waits on the COPY
    assert appender.commit() == 5


def test_abort_writes_nothing_and_frees_the_connection() -> None:
    stream = uuid.uuid4()
    appender = Appender(stream, 0)
    appender.add(counted_events(400))
    assert appender.is_open
    appender.abort()
    assert not appender.is_open
    assert store.current_version(stream) == 0
    assert (
        store.append(stream, counted_events(2), 0) == 2
    )  # the connection (and transaction) still work


def test_a_stale_writer_fails_at_commit_and_writes_nothing() -> None:
    stream = uuid.uuid4()
    store.append(stream, counted_events(3), 0)
    appender = Appender(stream, 1)
    appender.add(counted_events(400, start=100))
    with pytest.raises(ConcurrencyError, match="another writer"):
        appender.commit()
    assert payloads(stream) == [0, 1, 2]


def test_a_writer_ahead_of_the_stream_hits_the_gap_check() -> None:
    stream = uuid.uuid4()
    store.append(stream, counted_events(2), 0)
    appender = Appender(stream, 5)
    appender.add(counted_events(1))
    with pytest.raises(ConcurrencyError, match="the stream is at 2"):
        appender.commit()


def test_a_conflict_inside_an_outer_transaction_leaves_it_usable() -> None:
    stream = uuid.uuid4()
    with transaction.atomic():
        store.append(stream, counted_events(2), 0)
        appender = Appender(stream, 0)
        appender.add(counted_events(1))
        with pytest.raises(ConcurrencyError):
            appender.commit()
        assert store.append(stream, counted_events(1, start=2), 2) == 3
    assert payloads(stream) == [0, 1, 2]


def test_engine_rows_are_what_from_engine_would_write() -> None:
    engine_event = {
        "type": "cards_placed",
        "actor": 2,
        "payload": {"cards": ["NEG_01"], "slot": 1},
        "visible_to": [2],
        "redacted": {"count": 1},
    }
    streamed, wrapped = uuid.uuid4(), uuid.uuid4()
    appender = Appender(streamed, 0)
    appender.add_engine_events([engine_event], "brexit/1")  # type: ignore[list-item]
    appender.commit()
    store.append(wrapped, [NewEvent.from_engine(engine_event, engine_version="brexit/1")], 0)  # type: ignore[arg-type]
    (a,), (b,) = store.read(streamed), store.read(wrapped)
    assert (a.type, a.payload, a.metadata, a.schema_version) == (
        b.type,
        b.payload,
        b.metadata,
        b.schema_version,
    )
    assert a.as_engine_event() == engine_event


# Postgres text cannot hold NUL, and jsonb rejects the \u0000 escape: the engines never emit it.
text = st.text(st.characters(exclude_characters="\x00", exclude_categories=["Cs"]))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=12,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(payload=st.dictionaries(text, json_values, max_size=5), event_type=text.filter(bool))
def test_any_json_payload_and_type_survive_the_copy_encoding(
    payload: dict[str, Any], event_type: str
) -> None:
    stream = uuid.uuid4()
    store.append(
        stream, [NewEvent(type=event_type[:64], payload=payload, metadata={"p": payload})], 0
    )
    (stored,) = store.read(stream)
    assert (stored.type, stored.payload, stored.metadata) == (
        event_type[:64],
        payload,
        {"p": payload},
    )


def test_rows_are_sent_only_in_chunks() -> None:
    # A few small decisions' worth of events must not open the COPY (nor hold the connection).
    appender = Appender(uuid.uuid4(), 0)
    appender.add(counted_events(3))
    assert not appender.is_open
    with connection.cursor() as cur:
        cur.execute("SELECT 1")
    appender.abort()
