"""People in seats: a match waits for a person's action without holding a worker (issue #15).

The runner plays the bots until every pending seat left is a person's, stores the events
and marks the match ``waiting`` (``lifecycle.do_suspend``), releasing the worker. The
person's action arrives through ``submit`` (POST /api/matches/{id}/actions/), which checks
who may play which seat and hands the action to the lifecycle (``lifecycle.take_action``):
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
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db.models.functions import Coalesce
from django.utils import timezone

from games.engine.registry import get
from games.engine.types import JSON
from tournaments.play import lifecycle, selectors, visibility
from tournaments.play.lifecycle import Conflict, Refused
from tournaments.play.models import Match

log = logging.getLogger(__name__)

DEFAULT_MOVE_SECONDS = 600
"""A person's time for one decision unless the challenge sets ``human_move_seconds``."""
MIN_MOVE_SECONDS, MAX_MOVE_SECONDS = 5, 7 * 24 * 3600
ABANDONED_AFTER = timedelta(days=1)
"""A waiting match in which no person acted for this long ends aborted."""


class NotFound(LookupError):
    """No such match for this user, or no seat of theirs to act for (answered 404)."""


__all__ = ["Conflict", "NotFound", "Refused"]  # the refusals the API answers, with the lifecycle's


# --- the runner's side ----------------------------------------------------------------------


def take_expired(match: Match) -> frozenset[int]:
    """The people's seats whose decision's deadline had passed when the match was queued."""
    if match.deadline is None or match.deadline > timezone.now():
        return frozenset()
    return frozenset(match.waiting_for or ())


# --- the person's side ----------------------------------------------------------------------


def _own_seats(user: Any, match_id: Any) -> list[int]:
    """``user``'s seats in the match (NotFound if they may not see it or play none of it).

    Who may act for a seat is visibility's rule (``person_seats``, ``may_act``).
    """
    match = selectors.matches_visible_to(user).filter(pk=match_id).first()
    if match is None:
        raise NotFound("no such match")
    seats = visibility.person_seats(user, match)
    if not seats:
        raise NotFound("you have no seat to play in this match")
    return seats


@dataclass(frozen=True)
class Decision:
    """What one person's seat is asked now (GET /api/matches/{id}/actions/, the page)."""

    seat: int
    waiting: bool
    step: int | None
    deadline: Any
    status: str
    observation: JSON | None = None
    legal: JSON | None = None


def decisions(user: Any, match_id: Any) -> list[Decision]:
    """Each of ``user``'s seats: whether the match waits for it, and what it may do."""
    seats = _own_seats(user, match_id)
    match = Match.objects.get(pk=match_id)
    waiting = set(match.waiting_for or ()) if match.status == Match.Status.WAITING else set()
    state = lifecycle.state_now(match)[0] if waiting & set(seats) else None
    rules = get(match.game).rules
    out = []
    for number in seats:
        asked = number in waiting and state is not None
        out.append(
            Decision(
                seat=number,
                waiting=asked,
                step=match.waiting_step if asked else None,
                deadline=match.deadline if asked else None,
                status=match.status,
                observation=rules.observe(state, number) if asked else None,
                legal=dict(rules.legal(state, number)) if asked else None,
            )
        )
    return out


def submit(
    *, user: Any, match_id: Any, action: Any, seat: int | None = None, step: int | None = None
) -> Match:
    """Apply a person's action for their seat, as the runner applies a bot's, and queue the bots.

    ``step``: the decision the person answers (``waiting_step`` when they were asked); a
    second submission for a decision already answered is a Conflict, not the next decision's
    action. Raises NotFound, Refused or Conflict; on Refused and Conflict nothing is stored.
    """
    mine = set(_own_seats(user, match_id))
    if seat is None:
        if len(mine) > 1:
            raise Refused(f'you play seats {sorted(mine)} here: say which one with "seat"')
        seat = next(iter(mine))
    if seat not in mine:
        raise NotFound(f"seat {seat} is not yours to play")
    if not isinstance(action, dict):
        raise Refused('the action must be a JSON object, e.g. {"pass": true}')
    return lifecycle.take_action(match_id, seat, action, step)


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
