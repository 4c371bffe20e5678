"""The global feed: every stream's events in global order, for read models.

Positions are handed out when rows are inserted, not when transactions commit,
so a writer can take position 10, a second writer position 11 and commit
first. A reader that trusted positions alone would read 11, move its checkpoint
past 10 and never see it. The feed therefore only returns events written by
transactions older than the oldest one still running
(``tx_id < pg_snapshot_xmin(pg_current_snapshot())``): an event may arrive a
little late, but it is never skipped.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import TypeVar

from django.db import connection, transaction

from replays.models import FeedCheckpoint
from replays.store import _COLUMNS, StoredEvent, _fetch


def settled(columns: str, *, of_type: bool = False) -> str:
    """SQL selecting ``columns`` of the settled events after a position, in order.

    Its parameters: the position, the event type if ``of_type``, the limit. A read model
    that needs only a few fields (or a join) selects them here instead of whole events.
    """
    where = "position > %s AND tx_id < pg_snapshot_xmin(pg_current_snapshot())"
    if of_type:
        where += " AND event_type = %s"
    return f"SELECT {columns} FROM replays_event WHERE {where} ORDER BY position LIMIT %s"  # noqa: S608 (constant column names; values are bound parameters)


_FEED = settled(_COLUMNS)
_FEED_OF_TYPE = settled(_COLUMNS, of_type=True)


def read_after(
    position: int, limit: int = 1000, event_type: str | None = None
) -> list[StoredEvent]:
    """Up to ``limit`` events after ``position`` whose transactions are all settled.

    ``event_type`` keeps only events of that type (a read model that needs one type
    skips the rest in the database, not in Python).
    """
    if event_type is None:
        return _fetch(_FEED, [position, limit])
    return _fetch(_FEED_OF_TYPE, [position, event_type, limit])


def checkpoint(consumer: str) -> int:
    """The last position ``consumer`` has handled (0 if it never ran)."""
    row = (
        FeedCheckpoint.objects.filter(consumer=consumer).values_list("position", flat=True).first()
    )
    return row or 0


def consume(
    consumer: str,
    handle: Callable[[list[StoredEvent]], None],
    limit: int = 1000,
    event_type: str | None = None,
) -> int:
    """Hand the next batch to ``handle`` and advance the checkpoint; returns the batch size.

    ``handle`` runs in the same transaction as the checkpoint update, so a read
    model that writes through the same connection sees each event exactly once.
    An advisory lock keeps two instances of one consumer from interleaving; it
    takes no transaction id, so it does not hold back the feed's fence.
    """

    def step(position: int) -> tuple[int | None, int]:
        events = read_after(position, limit, event_type)
        if not events:
            return None, 0
        handle(events)
        return events[-1].position, len(events)

    return consume_step(consumer, step)


def lock(consumer: str) -> None:
    """Take ``consumer``'s lock until the transaction ends: its checkpoint stays put meanwhile
    (a rebuild of its read model holds it while it reads up to the checkpoint)."""
    with connection.cursor() as cur:
        cur.execute("SELECT pg_advisory_xact_lock(%s)", [zlib.crc32(consumer.encode())])


T = TypeVar("T")


def consume_step(consumer: str, step: Callable[[int], tuple[int | None, T]]) -> T:
    """Run ``step(checkpoint)`` in one transaction under the consumer's lock.

    ``step`` reads after the checkpoint (with :func:`settled`), handles what it read
    and returns the last position it handled (None: nothing) and any value to pass
    back; the checkpoint moves there in the same transaction.
    """
    with transaction.atomic():
        lock(consumer)
        last, value = step(checkpoint(consumer))
        if last is not None:
            FeedCheckpoint.objects.update_or_create(consumer=consumer, defaults={"position": last})
    return value
