"""``manage.py bench eventstore``: append() against raw COPY of the same rows, side by side.

The appended streams stay in the store (it is append-only); they are tagged
``{"bench": true}`` in their metadata. The raw COPY goes into a scratch copy of
the table, created with the same columns, defaults and indexes and dropped after.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from django.db import connection

from replays import store
from replays.store import NewEvent

SCRATCH = "replays_event_bench_scratch"


def _sample_batch(size: int) -> list[NewEvent]:
    # Shaped like real engine events: small payloads, visibility in the metadata.
    return [
        NewEvent(
            type="cards_placed",
            payload={"seat": i % 4, "slot": i % 3, "cards": ["NEG_07", "BLOCK_3"]},
            metadata={
                "actor": i % 4,
                "visible_to": [i % 4],
                "redacted": {"seat": i % 4, "slot": i % 3, "count": 2},
                "engine": "bench/1",
                "bench": True,
            },
        )
        for i in range(size)
    ]


def _copy_raw(cur: Any, stream: uuid.UUID, events: list[NewEvent]) -> None:
    with cur.copy(
        f"COPY {SCRATCH} (event_id, stream_id, version, event_type, schema_version, payload, metadata)"
        " FROM STDIN"
    ) as copy:
        for version, ev in enumerate(events, start=1):
            copy.write_row(
                (
                    ev.event_id,
                    stream,
                    version,
                    ev.type,
                    ev.schema_version,
                    json.dumps(ev.payload, separators=(",", ":")),
                    json.dumps(ev.metadata, separators=(",", ":")),
                )
            )


def bench_eventstore(batches: int = 300, batch_size: int = 100, rounds: int = 5) -> dict[str, Any]:
    """Events/s through append() and through raw COPY, alternating in rounds to share noise."""
    connection.ensure_connection()
    raw = connection.connection
    assert raw is not None
    with raw.cursor() as cur:
        cur.execute(f"DROP TABLE IF EXISTS {SCRATCH}")
        cur.execute(f"CREATE TABLE {SCRATCH} (LIKE replays_event INCLUDING ALL)")
    append_s = copy_s = 0.0
    per_round = max(1, batches // rounds)
    try:
        for _ in range(rounds):
            work = [(uuid.uuid4(), _sample_batch(batch_size)) for _ in range(per_round)]
            start = time.perf_counter()
            for stream, events in work:
                store.append(stream, events, expected_version=0)
            append_s += time.perf_counter() - start
            with raw.cursor() as cur:
                start = time.perf_counter()
                for stream, events in work:
                    _copy_raw(cur, stream, events)
                copy_s += time.perf_counter() - start
    finally:
        with raw.cursor() as cur:
            cur.execute(f"DROP TABLE IF EXISTS {SCRATCH}")
    total = per_round * rounds * batch_size
    append_rate, copy_rate = total / append_s, total / copy_s
    return {
        "bench": "eventstore",
        "batch_size": batch_size,
        "events_each": total,
        "append_events_per_s": round(append_rate),
        "raw_copy_events_per_s": round(copy_rate),
        "append_to_copy_ratio": round(append_rate / copy_rate, 3),
        "target_ratio": 0.7,
    }
