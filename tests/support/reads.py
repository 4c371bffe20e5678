"""A reader that reads a stream over and over, in a thread of its own, while a test compacts
or releases it: every read must give what the stream read before (tests/replays/test_archive.py,
tests/viewer/test_archived.py)."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from django.db import connections

from replays import store
from tests.support.processes import wait_until


@contextmanager
def reading_meanwhile(
    stream: uuid.UUID,
    before: Sequence[Any],
    page: tuple[int, int],
    *,
    at_least: int,
    join_seconds: float = 60.0,
) -> Iterator[list[bool]]:
    """Read ``stream`` whole and versions ``page`` (inclusive) over and over, from the reader's
    first reads before the block runs until it has ended and at least ``at_least`` reads are
    done; yields, per read, whether it gave ``before`` (its slice, for the page). A reader's
    error is raised once the block ends."""
    first, last = page
    reads: list[bool] = []
    errors: list[BaseException] = []
    done = threading.Event()

    def reader() -> None:
        try:
            while not done.is_set() or len(reads) < at_least:
                reads.append(store.read(stream) == before)
                reads.append(
                    store.read(stream, from_version=first, to_version=last)
                    == before[first - 1 : last]
                )
        except BaseException as exc:  # handed to the test, in its own thread
            errors.append(exc)
        finally:
            connections.close_all()

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        wait_until(lambda: len(reads) >= 4 or bool(errors), 60.0, "the reader's first reads")
        yield reads
    finally:
        done.set()
        thread.join(join_seconds)
    assert not thread.is_alive(), "the reader did not stop"
    if errors:
        raise errors[0]
