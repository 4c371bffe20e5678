"""People in seats: a match waits for a person's action without holding a worker (issue #15).

The runner plays the bots until every pending seat left is a person's, stores the events
and marks the match ``waiting`` (``lifecycle.do_suspend``), releasing the worker. The
person's action arrives through play's services (``services.submit_action``, POST
/api/matches/{id}/actions/), which checks who may play which seat (``selectors.own_seats``) and
hands the action to the lifecycle (``lifecycle.take_action``):
checked by the same rules a bot's action is and turned into events by the same function (an
illegal one is refused with the engine's reason and nothing is stored), appended in one
transaction that holds the match row, then the match is queued for a worker to play the bots
on. Sealed simultaneous decisions (Bra$ilis bids) stay waiting until every person's seat has
answered.

Clock: each decision has a deadline (``Match.human_move_seconds``, 10 minutes unless the
challenge says otherwise). ``reap`` (run by beat with the lease reaper) queues a match whose
deadline passed, and the runner plays the game's default action for those seats with the
verdict ``timeout`` (tournaments.play.players.HumanSeat). A match nobody acted in for a day
ends aborted with that reason.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta

from django.db.models.functions import Coalesce
from django.utils import timezone

from tournaments.play import lifecycle
from tournaments.play.models import Match

log = logging.getLogger(__name__)

ABANDONED_AFTER = timedelta(days=1)
"""A waiting match in which no person acted for this long ends aborted."""


# --- the runner's side ----------------------------------------------------------------------


def take_expired(match: Match) -> frozenset[int]:
    """The people's seats whose decision's deadline had passed when the match was queued."""
    if match.deadline is None or match.deadline > timezone.now():
        return frozenset()
    return frozenset(match.waiting_for or ())


# --- the clock (beat) -------------------------------------------------------------------------


def abandoned_reason(seats: list[int]) -> str:
    names = ", ".join(str(s) for s in seats)
    return (
        f"Stopped by the platform: nobody played seat {names} for a day, so the match was"
        " abandoned and has no result."
    )


def reap(*, send: Callable[[str], object]) -> int:
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
        if lifecycle.do_queue_expired(match_id, now):
            send(str(match_id))
            done += 1
    return done
