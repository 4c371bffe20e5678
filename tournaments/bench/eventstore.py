"""``manage.py bench eventstore``: append() against raw COPY of the same rows, side by side.

The database benches run in a throwaway database (``bench_database``): the
events table is append-only, so whatever a bench wrote into the real one would
stay there for good, and a table that grows with every run would make runs
incomparable. The raw COPY goes into a scratch copy of the table, created with
the same columns, defaults and indexes and dropped after.
"""

from __future__ import annotations

import statistics
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connection, connections

from replays import store
from replays.store import NewEvent, copy_row, copy_stream
from tournaments.bench.backend import backend_pid
from tournaments.bench.endpoints import run_seconds

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


def encoded_rows(stream: uuid.UUID, events: list[NewEvent], first_version: int = 1) -> list[bytes]:
    """The rows append() would write, encoded beforehand so that raw COPY times only the COPY."""
    encoded = copy_stream(stream)
    return [copy_row(encoded, v, ev) for v, ev in enumerate(events, start=first_version)]


@contextmanager
def bench_database(alias: str = "default") -> Iterator[str]:
    """Run the block in a new database migrated like the real one, dropped after.

    Django's own test-database machinery does the work: it creates
    ``<name>_bench``, migrates it and points the connection at it, and puts
    the connection back afterwards.
    """
    conn = connections[alias]
    real_name = conn.settings_dict["NAME"]
    conn.settings_dict["TEST"] = {
        **conn.settings_dict.get("TEST", {}),
        "NAME": f"{real_name}_bench",
    }
    name = conn.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        yield name
    finally:
        conn.creation.destroy_test_db(real_name, verbosity=0)


@contextmanager
def scratch_table() -> Iterator[Any]:
    """A cursor and an empty copy of the events table (columns, defaults, indexes), dropped after."""
    connection.ensure_connection()
    raw = connection.connection
    assert raw is not None
    with raw.cursor() as cur:
        cur.execute(f"DROP TABLE IF EXISTS {SCRATCH}")
        cur.execute(f"CREATE TABLE {SCRATCH} (LIKE replays_event INCLUDING ALL)")
        try:
            yield cur
        finally:
            cur.execute(f"DROP TABLE IF EXISTS {SCRATCH}")


def copy_rows(cur: Any, rows: list[bytes]) -> None:
    """One raw COPY of ``rows`` into the scratch table (autocommitted: one transaction)."""
    with cur.copy(
        f"COPY {SCRATCH} (event_id, stream_id, version, event_type, schema_version, payload, metadata)"
        " FROM STDIN"
    ) as copy:
        copy.write(b"".join(rows))


CHUNK = 10
"""Batches appended, then copied raw, at a time: both sides meet the disk in the same mood."""


def bench_eventstore(
    batches: int = 350, batch_size: int = 100, rounds: int = 7, matches: int = 0
) -> dict[str, Any]:
    """Events/s through append() and through raw COPY, side by side; with ``matches``, also the
    Postgres CPU one played match costs (tournaments/bench/match_cost.py), measured after.

    Small chunks of batches alternate between the two sides, and the figure that
    the target applies to is the median over rounds of each round's ratio: a slow
    spell of a shared machine spoils a round, not the run.
    """
    append_s = copy_s = append_cpu = copy_cpu = 0.0
    per_round = max(1, batches // rounds)
    round_ratios = []
    with scratch_table() as cur:
        pid = backend_pid()  # both sides write through this one connection

        def cpu() -> float:
            return time.process_time() + run_seconds(pid)

        for _ in range(rounds):
            work = [(uuid.uuid4(), _sample_batch(batch_size)) for _ in range(per_round)]
            rows = [encoded_rows(stream, events) for stream, events in work]
            round_append = round_copy = 0.0
            for first in range(0, per_round, CHUNK):
                start, start_cpu = time.perf_counter(), cpu()
                for stream, events in work[first : first + CHUNK]:
                    store.append(stream, events, expected_version=0)
                round_append += time.perf_counter() - start
                append_cpu += cpu() - start_cpu
                start, start_cpu = time.perf_counter(), cpu()
                for batch in rows[first : first + CHUNK]:
                    copy_rows(cur, batch)
                round_copy += time.perf_counter() - start
                copy_cpu += cpu() - start_cpu
            round_ratios.append(round_copy / round_append)  # same events on both sides
            append_s, copy_s = append_s + round_append, copy_s + round_copy
    total = per_round * rounds * batch_size
    append_rate, copy_rate = total / append_s, total / copy_s
    costs = {}
    if matches:
        from django.contrib.auth import get_user_model

        from tournaments.bench.match_cost import match_costs

        user, _ = get_user_model().objects.get_or_create(username="bench-eventstore")
        costs = match_costs(matches, user)
    return {
        "bench": "eventstore",
        "batch_size": batch_size,
        "events_each": total,
        "append_events_per_s": round(append_rate),
        "raw_copy_events_per_s": round(copy_rate),
        "append_to_copy_ratio": round(statistics.median(round_ratios), 3),
        "append_to_copy_ratio_overall": round(append_rate / copy_rate, 3),
        "round_ratios": [round(r, 3) for r in round_ratios],
        "ratio": "median over rounds of append() events/s over raw COPY events/s",
        # The same comparison in CPU (this process and its Postgres backend), which other work
        # on a shared machine hardly moves: what append() costs beyond the COPY itself.
        "append_to_copy_cpu_ratio": round(copy_cpu / append_cpu, 3),
        "target_ratio": 0.8,
        **costs,
    }
