"""The reaper, run by beat every 30 s (``tournaments.reap_matches``): what no worker is left to do.

* A running match whose worker stopped renewing its lease (it died) is queued again.
* A match queued, or a version pending, for longer than ``resend_after()`` has probably lost
  its message (the broker was down or restarted): it is sent again.
* The people's clock: a match that waits for a person past the decision's deadline is queued,
  and the runner plays the game's default action for that seat with the verdict ``timeout``
  (tournaments.play.players.HumanSeat); a match nobody acted in for a day ends aborted.

Every match it queues wakes a worker through tournaments/play/dispatch.py, as every other
sender does: on the queue of the match's class (a person's match on ``people``, an upload's
smoke match as its version's validation, the rest on ``matches``), and a broker that is down
only leaves the match for the next round of the reaper.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db.models.functions import Coalesce
from django.utils import timezone

from tournaments.play import dispatch, lifecycle
from tournaments.play.models import BotVersion, Match

log = logging.getLogger(__name__)

STALE_QUEUED_AFTER = timedelta(minutes=10)
"""A match queued for longer than this has probably lost its message: the reaper sends it again."""
ABANDONED_AFTER = timedelta(days=1)
"""A waiting match in which no person acted for this long ends aborted."""


def resend_after() -> timedelta:
    """How long a match may stay queued (or a version pending) before the reaper re-sends it:
    ``MATCH_RESEND_AFTER_SECONDS``, else STALE_QUEUED_AFTER."""
    seconds = getattr(settings, "MATCH_RESEND_AFTER_SECONDS", None)
    return STALE_QUEUED_AFTER if seconds is None else timedelta(seconds=float(seconds))


def reap() -> int:
    """Everything above, once: how many matches it queued, re-sent or ended."""
    return reap_expired_leases() + reap_people()


def reap_expired_leases(*, stale_queued_after: timedelta | None = None) -> int:
    """Re-queue matches whose worker stopped renewing its lease, and re-send lost queued ones.

    A match whose message was never sent (the broker was down when it was created) is one of
    the lost queued ones; so is a version left pending for as long, whose validation is sent
    again.
    """
    if stale_queued_after is None:
        stale_queued_after = resend_after()
    now = timezone.now()
    expired, requeued = lifecycle.do_requeue_expired(now)
    stale = list(
        Match.objects.filter(
            status=Match.Status.QUEUED, created_at__lt=now - stale_queued_after
        ).values_list("id", flat=True)
    )
    resend = Match.objects.filter(id__in={*expired, *stale}).values_list(
        "id", "priority", "validation_of_id"
    )
    validations: set[int] = set()  # a smoke match's message is its version's validation
    for match_id, priority, validation_of in resend:
        dispatch.play_match(str(match_id), priority, validation_of)
        if priority == Match.Priority.VALIDATION and validation_of is not None:
            validations.add(validation_of)
    pending = BotVersion.objects.filter(
        status=BotVersion.Status.PENDING, created_at__lt=now - stale_queued_after
    ).values_list("id", flat=True)
    for version_id in pending:
        if version_id not in validations:
            dispatch.validate_bot_version(version_id)
    if requeued:
        log.warning("re-queued %d matches whose lease expired", requeued)
    return requeued + len(stale)


# --- the people's clock -----------------------------------------------------------------------


def abandoned_reason(seats: list[int]) -> str:
    names = ", ".join(str(s) for s in seats)
    return (
        f"Stopped by the platform: nobody played seat {names} for a day, so the match was"
        " abandoned and has no result."
    )


def reap_people() -> int:
    """End abandoned waiting matches, and queue those whose deadline passed (defaults played)."""
    now = timezone.now()
    waiting = Match.objects.filter(status=Match.Status.WAITING)
    done = 0
    # Since a person last acted, or since the match was created (a fork) if nobody has yet.
    acted = Coalesce("human_acted_at", "created_at")
    abandoned = waiting.annotate(acted=acted).filter(acted__lt=now - ABANDONED_AFTER)
    for match in abandoned.only("id", "game", "waiting_for"):
        done += lifecycle.do_abandon(match, abandoned_reason(list(match.waiting_for or ())))
    expired = list(waiting.filter(deadline__lt=now).values_list("id", flat=True))
    for match_id in expired:
        # Played in the same turn as everyone's work (lifecycle.do_queue_expired's class).
        if lifecycle.do_queue_expired(match_id, now):
            dispatch.play_match(str(match_id), Match.Priority.PLAY)
            done += 1
    return done
