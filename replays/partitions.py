"""The events table's partitions: one a month of stream ids, and a default (migrations/0005).

Stream ids are UUIDv7, so a month's partition holds the events of the streams made that
month (UTC). A month's partition must exist before its first stream's events arrive, or they
go to the default partition and that month can no longer get one; ``add_partitions``
creates the current month's and the next ones' ahead of time (beat every hour, and ``manage.py archive``).
Once a past month's streams are all archived, its partition is emptied whole
(replays.archive.release_partition) instead of row by row.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.db import connection

AHEAD = 2
"""Months created ahead of the current one."""

PREFIX = "replays_event_p"
DEFAULT = "replays_event_default"


def add_partitions(ahead: int = AHEAD) -> list[str]:
    """Create the partitions of the current month and the ``ahead`` next ones that are
    missing; returns the names made."""
    with connection.cursor() as cur:
        cur.execute("SELECT replays_event_add_partitions(%s)", [ahead])
        return [row[0] for row in cur.fetchall()]


def name_of(month: datetime) -> str:
    """The partition of the streams made in ``month``'s month (UTC)."""
    return f"{PREFIX}{month.astimezone(UTC):%Y%m}"


def partitions() -> list[str]:
    """The events table's partitions, by name (months in order, then the default)."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
            " WHERE i.inhparent = 'replays_event'::regclass"
            " ORDER BY c.relname = %s, c.relname",
            [DEFAULT],
        )
        return [row[0] for row in cur.fetchall()]


def past_months(now: datetime | None = None) -> list[str]:
    """The partitions of months before the current one: no new stream goes there."""
    current = name_of(now or datetime.now(UTC))
    return [p for p in partitions() if p.startswith(PREFIX) and p < current]
