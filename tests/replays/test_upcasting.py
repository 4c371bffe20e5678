"""Old payloads are upgraded on read; the stored row is never rewritten."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection

from replays import store, upcasting
from replays.store import NewEvent

pytestmark = pytest.mark.django_db


@pytest.fixture
def renamed_field_upcasters() -> Iterator[None]:
    """v1 called the slot 'position'; v2 renamed it 'slot'; v3 added 'face_down'."""

    @upcasting.upcaster("test_placed", from_version=1)
    def v1_to_v2(payload: dict[str, Any]) -> dict[str, Any]:
        payload = dict(payload)
        payload["slot"] = payload.pop("position")
        return payload

    @upcasting.upcaster("test_placed", from_version=2)
    def v2_to_v3(payload: dict[str, Any]) -> dict[str, Any]:
        return {**payload, "face_down": True}

    yield
    upcasting.unregister("test_placed", 1)
    upcasting.unregister("test_placed", 2)


def test_a_stored_v1_payload_is_read_through_the_chain(renamed_field_upcasters: None) -> None:
    stream = uuid.uuid4()
    store.append(
        stream, [NewEvent(type="test_placed", payload={"position": 2}, schema_version=1)], 0
    )
    (event,) = store.read(stream)
    assert event.schema_version == 3
    assert event.payload == {"slot": 2, "face_down": True}
    with connection.cursor() as cur:
        cur.execute(
            "SELECT payload::text, schema_version FROM replays_event WHERE stream_id = %s", [stream]
        )
        raw_payload, raw_version = cur.fetchone()
    assert (raw_payload, raw_version) == ('{"position": 2}', 1)


def test_a_current_payload_passes_unchanged(renamed_field_upcasters: None) -> None:
    stream = uuid.uuid4()
    store.append(
        stream,
        [NewEvent(type="test_placed", payload={"slot": 1, "face_down": False}, schema_version=3)],
        0,
    )
    assert store.read(stream)[0].payload == {"slot": 1, "face_down": False}


def test_registering_the_same_step_twice_is_an_error(renamed_field_upcasters: None) -> None:
    with pytest.raises(ValueError, match="already registered"):
        upcasting.upcaster("test_placed", from_version=1)(lambda p: p)
