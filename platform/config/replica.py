"""Reads from a streaming replica: the database router, the per-request switch, the lag check.

Writes always go to the primary (``default``). Reads go to the ``replica`` alias only when the
request being served asked for it (``tournaments.site.replica_reads`` does, for the site's and
the API's read-only requests) and nothing since forbade it: a write in the same request, an
open transaction on the primary, or ``on_primary()``. Everything else (Celery workers, beat,
management commands, the runner, the feed and its consumers) never sets the switch, so it reads
the primary as if no replica existed.

The replica serves reads only while its lag, checked at most every ``REPLICA_LAG_CHECK_SECONDS``
per process (never per request), is at most ``REPLICA_MAX_LAG_SECONDS``; above that, or when it
cannot be reached, reads fall back to the primary until a later check finds it caught up.

The lag: zero when the replica has replayed all the WAL the primary had written when the check
began; otherwise the age of the last transaction it replayed (its commit time, as written by the
primary). Replay follows commit order, so every transaction committed more than ``lag`` seconds
before the check is on the replica: that is what makes the read-your-writes window
(``REPLICA_READ_YOUR_WRITES_SECONDS`` > max lag + check interval) sufficient. Asking the primary
too catches a replica that stopped receiving WAL, which the replica alone would report as
caught up.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections

log = logging.getLogger(__name__)

REPLICA = "replica"
"""The replica's database alias (settings: ``REPLICA_DATABASE_URL``)."""


@dataclass
class Reads:
    """Where this request's reads may go: the replica while ``replica`` and nothing wrote yet."""

    replica: bool = False
    wrote: bool = False
    read: bool = False
    """Whether a read went to the replica (``served_by_replica``)."""


_reads: contextvars.ContextVar[Reads | None] = contextvars.ContextVar("replica_reads", default=None)


def configured() -> bool:
    return REPLICA in settings.DATABASES


def begin(reads: Reads) -> Reads:
    """This request's switch (a new one for each request, so nothing carries over)."""
    _reads.set(reads)
    return reads


def end() -> None:
    """Back to the primary once the response is closed (a streamed body included)."""
    _reads.set(None)


def current() -> Reads | None:
    return _reads.get()


def served_by_replica() -> bool:
    """Whether this request has read anything from the replica: what it answers may lack the
    writes of the last ``REPLICA_READ_YOUR_WRITES_SECONDS``."""
    reads = _reads.get()
    return reads is not None and reads.read


@contextlib.contextmanager
def on_primary() -> Iterator[None]:
    """Reads inside go to the primary whatever the request asked (credentials, for instance:
    a token made a moment ago may be used at once by another client)."""
    token = _reads.set(Reads(replica=False))
    try:
        yield
    finally:
        _reads.reset(token)


class PrimaryReplicaRouter:
    """``DATABASE_ROUTERS``: writes to the primary; reads to the replica only as said above."""

    def db_for_read(self, model: type[Any], **hints: Any) -> str | None:
        reads = _reads.get()
        if reads is None or not reads.replica or reads.wrote:
            return None
        # A transaction on the primary (select_for_update, a service's atomic block) reads what
        # it is about to write: the replica may not have it yet.
        if connections[DEFAULT_DB_ALIAS].in_atomic_block:
            return None
        reads.read = True
        return REPLICA

    def db_for_write(self, model: type[Any], **hints: Any) -> str:
        reads = _reads.get()
        if reads is not None:
            reads.wrote = True  # the rest of the request reads what it wrote: the primary
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool | None:
        both = {obj1._state.db, obj2._state.db}
        return True if both <= {DEFAULT_DB_ALIAS, REPLICA} else None

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool | None:
        return False if db == REPLICA else None  # a standby is read only; it replays migrations


@dataclass(frozen=True)
class ReplicaState:
    """What the last check found. ``status``: ``absent`` (no replica configured), ``ok``,
    ``lagging`` (over the bound, or lag unknown), ``unavailable`` (no answer), ``not_standby``
    (the replica is not in recovery: promoted, or the URL names a primary)."""

    status: str
    lag_seconds: float | None
    checked_at: float

    @property
    def serves_reads(self) -> bool:
        return self.status == "ok"

    def as_json(self) -> dict[str, Any]:
        lag = None if self.lag_seconds is None else round(self.lag_seconds, 3)
        return {
            "replica": self.status,
            "replica_lag_seconds": lag,
            "reads": "replica" if self.serves_reads else "primary",
        }


PRIMARY_LSN = "SELECT pg_current_wal_lsn()::text"
REPLICA_LAG = """
SELECT pg_is_in_recovery(),
       coalesce(pg_last_wal_replay_lsn() >= %s::pg_lsn, false),
       extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp())::float8
"""


def measure() -> ReplicaState:
    """Ask the primary, then the replica (a fresh answer: ``state()`` caches it)."""
    now = time.monotonic()
    if not configured():
        return ReplicaState("absent", None, now)
    try:
        with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
            cursor.execute(PRIMARY_LSN)
            (primary_lsn,) = cursor.fetchone()
        with connections[REPLICA].cursor() as cursor:
            cursor.execute(REPLICA_LAG, [primary_lsn])
            in_recovery, caught_up, age = cursor.fetchone()
    # Whatever fails, the primary serves (the suite's pytest-django refuses queries on a mirror
    # alias with an AssertionError, for one).
    except Exception as exc:
        log.warning("replica lag check failed, reading from the primary: %r", exc)
        return ReplicaState("unavailable", None, now)
    if not in_recovery:
        return ReplicaState("not_standby", None, now)
    # Nothing replayed since the standby started (age unknown) while behind: not known to be fresh.
    lag = 0.0 if caught_up else (None if age is None else max(0.0, float(age)))
    fresh = lag is not None and lag <= settings.REPLICA_MAX_LAG_SECONDS
    return ReplicaState("ok" if fresh else "lagging", lag, now)


_state: ReplicaState | None = None
_lock = threading.Lock()


def state() -> ReplicaState:
    """The last check's answer if it is recent enough, else a new one (one thread checks; the
    others wait for its answer rather than use one older than the check interval)."""
    global _state
    seen = _state
    if seen is not None and time.monotonic() - seen.checked_at < settings.REPLICA_LAG_CHECK_SECONDS:
        return seen
    with _lock:
        seen = _state
        if seen is None or time.monotonic() - seen.checked_at >= settings.REPLICA_LAG_CHECK_SECONDS:
            seen = _state = measure()
        return seen
