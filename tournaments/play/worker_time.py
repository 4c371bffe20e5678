"""Worker time: how many seconds of a worker each account's work took in the last hour.

Every match a worker plays is charged, once it lets the match go, to the keys of whoever the
match is for (``scheduler.Picked.keys``: the account, the address it signed up from, or the
ladder or season). Seconds are kept per key and minute (``WorkerTime``), so the last hour is
a sum over at most 60 rows per key. The fair choice of the next match (scheduler.py) and the
hourly budget at the door (allowance.py) read it.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

import psycopg
from django.db import connection
from django.utils import timezone

from tournaments.play.models import WorkerTime

WINDOW = timedelta(hours=1)

_CHARGE = """
INSERT INTO tournaments_workertime (key, minute, seconds)
SELECT key, date_trunc('minute', now()), %(seconds)s FROM unnest(%(keys)s::text[]) AS key
ON CONFLICT (key, minute) DO UPDATE SET seconds = tournaments_workertime.seconds + excluded.seconds
"""


def charge(keys: Iterable[str], seconds: float) -> None:
    """Add ``seconds`` of worker time to each key (in this minute)."""
    wanted = sorted({key for key in keys if key})  # sorted: concurrent upserts lock in one order
    if not wanted or seconds <= 0:
        return
    connection.ensure_connection()
    # Prepared on the server, as the pick is: every match a worker plays ends with this upsert,
    # and planning it cost as much as running it.
    with psycopg.Cursor(connection.connection) as cur:
        cur.execute(_CHARGE, {"keys": wanted, "seconds": float(seconds)}, prepare=True)


def used(keys: Iterable[str]) -> dict[str, float]:
    """Worker seconds of each key in the last hour (keys with none are absent)."""
    wanted = sorted({key for key in keys if key})
    if not wanted:
        return {}
    since = timezone.now() - WINDOW
    with connection.cursor() as cur:
        cur.execute(
            "SELECT key, sum(seconds) FROM tournaments_workertime"
            " WHERE key = ANY(%s) AND minute > %s GROUP BY key",
            [wanted, since],
        )
        return {key: float(seconds) for key, seconds in cur.fetchall()}


def oldest_minute(key: str) -> datetime | None:
    """The first minute of the window in which ``key`` used a worker (when its budget frees)."""
    return (
        WorkerTime.objects.filter(key=key, minute__gt=timezone.now() - WINDOW)
        .order_by("minute")
        .values_list("minute", flat=True)
        .first()
    )


def forget_old() -> int:
    """Delete the minutes that have left the window (the reaper calls this)."""
    deleted, _ = WorkerTime.objects.filter(minute__lt=timezone.now() - 2 * WINDOW).delete()
    return deleted
