"""Who holds a running match: the claim that takes it, the lease that keeps it, letting it go.

A running match belongs to one worker, its lease owner, until ``lease_expires_at``; the
worker renews the lease at every flush (stream.py). A match is claimable while it is queued
or once its lease has expired (its worker died), and a claim is one atomic UPDATE that
succeeds only then. Two statements claim: ``do_claim`` for a named match (the runner called
directly, ``manage.py play``), and the scheduler's ranking statement
(tournaments/play/scheduler.py), which picks the match that comes first and ends with this
module's ``CLAIM_PICKED``, so both set the same fields under the same condition.

Each claim counts an attempt, except the claim that follows an attempt a database outage
ended (``refund_of``, that attempt's owner, still the lease's if nobody claimed the match
since): it takes that attempt's place (tournaments.play.runner.AttemptInterrupted).
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Case, F, Q, Value, When
from django.db.models.functions import Coalesce, Now

from tournaments.play.models import Match

CLAIMABLE = "(m.status = 'queued' OR (m.status = 'running' AND m.lease_expires_at < now()))"
"""SQL: the match row ``m`` may be claimed (``claimable`` in the ORM)."""
STILL_CLAIMABLE = """CASE m.status WHEN 'queued' THEN true
    WHEN 'running' THEN m.lease_expires_at < now() ELSE false END"""
"""The same test on a row about to be locked, written so that no index serves it: the rows are
then found by primary key (a plan over the status index misjudged on fresh tables cost 200 ms)."""

CLAIM_PICKED = """UPDATE tournaments_match m SET
    status = 'running',
    lease_owner = %(owner)s,
    lease_expires_at = now() + make_interval(secs => %(lease)s),
    -- The claim after an attempt a database outage ended (its owner, refund_of, still the
    -- lease's: nobody claimed it since) takes that attempt's place instead of counting one.
    attempts = m.attempts + CASE WHEN m.lease_owner = %(refund_of)s THEN 0 ELSE 1 END,
    started_at = coalesce(m.started_at, now())
FROM picked WHERE m.id = picked.id"""
"""SQL: claim the row of the CTE ``picked`` (locked FOR UPDATE, still claimable) for
``%(owner)s``, a lease of ``%(lease)s`` seconds (``lease_seconds``); the caller adds its
RETURNING. ``%(refund_of)s`` None compares with no owner: every claim then counts."""


def lease_seconds() -> int:
    return int(getattr(settings, "MATCH_LEASE_SECONDS", 60))


def claimable() -> Q:
    """The ORM's ``CLAIMABLE``."""
    return Q(status=Match.Status.QUEUED) | Q(
        status=Match.Status.RUNNING, lease_expires_at__lt=Now()
    )


def _claim_fields(owner: str, refund_of: str | None = None) -> dict[str, Any]:
    # The UPDATE compares the row's lease_owner before it sets it: the attempt ``refund_of``
    # is given back only if no other worker has claimed the match since, and only once.
    counted: Any = Value(1)
    if refund_of:
        counted = Case(When(lease_owner=refund_of, then=Value(0)), default=Value(1))
    return {
        "status": Match.Status.RUNNING,
        "lease_owner": owner,
        "lease_expires_at": Now() + timedelta(seconds=lease_seconds()),
        "attempts": F("attempts") + counted,
        "started_at": Coalesce("started_at", Now()),
    }


def do_claim(match_id: uuid.UUID, owner: str, *, refund_of: str | None = None) -> bool:
    """Take the match if it is queued or its lease has expired (one atomic UPDATE); False if
    another worker holds it or it is over."""
    fields = _claim_fields(owner, refund_of)
    return Match.objects.filter(claimable(), id=match_id).update(**fields) == 1


def do_renew(match_id: uuid.UUID, owner: str) -> bool:
    """Extend ``owner``'s lease (a built-in match the scheduler claimed, after each flush, so
    that a long match is not reaped while it plays); False if it is no longer theirs."""
    return bool(
        Match.objects.filter(id=match_id, status=Match.Status.RUNNING, lease_owner=owner).update(
            lease_expires_at=Now() + timedelta(seconds=lease_seconds())
        )
    )


def do_release(match_id: uuid.UUID, owner: str) -> bool:
    """Put back a match ``owner`` claimed and will not play (queued again, one attempt less)."""
    return bool(
        Match.objects.filter(id=match_id, status=Match.Status.RUNNING, lease_owner=owner).update(
            status=Match.Status.QUEUED,
            lease_owner="",
            lease_expires_at=None,
            attempts=F("attempts") - 1,
        )
    )


def do_requeue_expired(now: datetime, among: Any = None) -> tuple[list[uuid.UUID], int]:
    """Queue again the running matches whose lease expired before ``now`` (their worker stopped
    renewing it): their ids, and how many this call queued (another reaper may have first).
    ``among``: only these matches (a queryset: staff's re-queue), else every one."""
    matches = Match.objects.all() if among is None else among
    expired = list(
        matches.filter(status=Match.Status.RUNNING, lease_expires_at__lt=now).values_list(
            "id", flat=True
        )
    )
    # lease_owner stays: a worker whose attempt a database outage ended gives it back at its
    # next claim if the match is still as it left it (refund_of).
    requeued = Match.objects.filter(id__in=expired, lease_expires_at__lt=now).update(
        status=Match.Status.QUEUED, lease_expires_at=None
    )
    return expired, requeued
