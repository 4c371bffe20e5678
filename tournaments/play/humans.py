"""People in seats: a match waits for a person's action without holding a worker (issue #15).

The runner plays the bots until every pending seat left is a person's, stores the events
and marks the match ``waiting`` (``suspend``), releasing the worker. The person's action
arrives through ``submit`` (POST /api/matches/{id}/actions/): checked by the same rules a
bot's action is (an illegal one is refused with the engine's reason and nothing is stored),
applied and appended in one transaction that holds the match row, then the match is queued
for a worker to play the bots on. Sealed simultaneous decisions (Bra$ilis bids) stay
waiting until every person's seat has answered.

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

from django.db import transaction
from django.db.models import Q
from django.db.models.functions import Coalesce, Now
from django.utils import timezone

from games.engine.driver import refusal
from games.engine.errors import IllegalAction
from games.engine.platform_events import verdict_event
from games.engine.registry import get
from games.engine.rng import step_rng
from games.engine.types import JSON
from replays import snapshots, store
from replays.store import ConcurrencyError, NewEvent
from tournaments.play import dispatch, lifecycle, selectors, visibility
from tournaments.play.models import Match, Seat

log = logging.getLogger(__name__)

DEFAULT_MOVE_SECONDS = 600
"""A person's time for one decision unless the challenge sets ``human_move_seconds``."""
MIN_MOVE_SECONDS, MAX_MOVE_SECONDS = 5, 7 * 24 * 3600
ABANDONED_AFTER = timedelta(days=1)
"""A waiting match in which no person acted for this long ends aborted."""


class NotFound(LookupError):
    """No such match for this user, or no seat of theirs to act for (answered 404)."""


class Refused(ValueError):
    """The action is malformed or illegal now; nothing was stored (answered 400)."""


class Conflict(Exception):
    """The decision was already answered, or the seat is not being waited for (answered 409)."""


# --- the runner's side ----------------------------------------------------------------------


def suspend(match: Match, owner: str, seats: list[int], step: int) -> bool:
    """Store that ``match`` waits for people's ``seats`` at ``step``; release the lease.

    The attempts count starts again: a human match is resumed once per decision, which the
    runner's limit on workers that started a match must not count as failures.
    """
    updated = Match.objects.filter(
        id=match.id, status=Match.Status.RUNNING, lease_owner=owner
    ).update(
        status=Match.Status.WAITING,
        waiting_for=sorted(seats),
        waiting_step=step,
        deadline=Now() + timedelta(seconds=match.human_move_seconds),
        suspended_at=Now(),
        lease_owner="",
        lease_expires_at=None,
        attempts=0,
    )
    if not updated:
        log.warning("match %s: lease lost before it could wait for seats %s", match.id, seats)
    return bool(updated)


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


def _state(match: Match) -> tuple[Any, int]:
    """The game state now (a fresh object: deciding folds into it), and the stream's version.

    From the nearest snapshot (the viewer's, every 50 events): a person's match is read
    once per decision, and folding its whole stream each time grows with the game.
    """
    rules = get(match.game).rules
    return snapshots.state_at_step(rules, match.id, match.last_version)


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
    state = _state(match)[0] if waiting & set(seats) else None
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
    _refuse_late(match_id)
    with transaction.atomic():
        # The row lock orders concurrent submissions (two tabs, two people in a sealed bid):
        # each sees the events the one before it stored.
        match = Match.objects.select_for_update().get(pk=match_id)
        _check_waiting(match, seat, step)
        rules = get(match.game).rules
        state, version = _state(match)
        try:
            rules.check(state, seat, action)
            events = rules.decide(state, seat, action, step_rng(match.seed, version))
        except IllegalAction as exc:
            raise Refused(refusal(exc)) from None
        except Exception as exc:  # as for a bot: an engine that fails on an action refuses it
            log.warning("match %s: the engine failed on seat %s's action", match.id, seat)
            raise Refused(refusal(exc)) from None
        started = (match.deadline or timezone.now()) - timedelta(seconds=match.human_move_seconds)
        elapsed = max(0, int((timezone.now() - started).total_seconds() * 1000))
        verdict = verdict_event(seat, "ok", detail="", elapsed_ms=elapsed, strikes=0, step=version)
        engine_version = rules.engine_version
        try:
            store.append(
                match.id,
                [
                    NewEvent.from_engine(ev, engine_version=engine_version)
                    for ev in [verdict, *events]
                ],
                version,
            )
        except ConcurrencyError:
            raise Conflict("the match moved on while this action was applied; ask again") from None
        _after_action(match, seat, state, version + 1 + len(events))
    match.refresh_from_db()
    return match


def _refuse_late(match_id: Any) -> None:
    """Past its deadline a decision is no longer the person's: the default is played for them.

    The match is queued at once (the reaper would within its interval), so the default is
    not left waiting on the reaper while the person is told why their action came too late.
    """
    late = Match.objects.filter(
        id=match_id, status=Match.Status.WAITING, deadline__lt=timezone.now()
    )
    deadline = late.values_list("deadline", flat=True).first()
    if deadline is None:
        return
    if late.update(status=Match.Status.QUEUED, priority=Match.Priority.PERSON):  # they are here
        transaction.on_commit(lambda: dispatch.play_match(str(match_id), Match.Priority.PERSON))
    raise Conflict(
        f"the deadline for this decision passed at {deadline.isoformat()}: the default action"
        " is played for your seat"
    )


def _check_waiting(match: Match, seat: int, step: int | None) -> None:
    if match.status in (Match.Status.FINISHED, Match.Status.ABORTED):
        raise Conflict(f"the match is over ({match.status})")
    waiting = match.waiting_for if match.status == Match.Status.WAITING else []
    if seat not in waiting:
        raise Conflict(
            f"seat {seat} has no decision to make now (the match is at step"
            f" {match.last_version}, {match.status}); this one may already be answered"
        )
    if step is not None and match.waiting_step is not None and step > match.waiting_step:
        raise Refused(
            f"there is no decision {step} yet: seat {seat} is asked at step {match.waiting_step}"
        )
    if step is not None and step != match.waiting_step:
        raise Conflict(
            f"decision {step} was already answered; seat {seat} is now asked at step"
            f" {match.waiting_step}"
        )


def _after_action(match: Match, seat: int, state: Any, version: int) -> None:
    """Keep waiting if only people's seats are pending, else queue the bots' turn."""
    rules = get(match.game).rules
    people = set(
        Seat.objects.filter(match=match, player__isnull=False).values_list("number", flat=True)
    )
    pending = [p["seat"] for p in rules.pending(state)]
    fields: dict[str, Any] = {"human_acted_at": Now()}
    if pending and people.issuperset(pending):
        same = set(pending) <= set(match.waiting_for) - {seat}  # the others of a sealed bid
        fields["waiting_for"] = sorted(pending)
        if not same:
            fields["waiting_step"] = version
            fields["deadline"] = Now() + timedelta(seconds=match.human_move_seconds)
        Match.objects.filter(pk=match.pk).update(**fields)
        return
    # A person's move is what buys the bots' reply the head of the queue (scheduler.py).
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.QUEUED,
        priority=Match.Priority.PERSON,
        waiting_for=[],
        waiting_step=None,
        deadline=None,
        **fields,
    )
    match_id = str(match.pk)
    transaction.on_commit(lambda: dispatch.play_match(match_id, Match.Priority.PERSON))


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
        done += _abandon(match)
    expired = list(waiting.filter(deadline__lt=now).values_list("id", flat=True))
    for match_id in expired:
        # Nobody moved: the default is played in the same turn as everyone's work, not ahead
        # of it (a person's class is for a person waiting on the bots' reply).
        if Match.objects.filter(id=match_id, status=Match.Status.WAITING, deadline__lt=now).update(
            status=Match.Status.QUEUED, priority=Match.Priority.PLAY
        ):
            send(str(match_id))
            done += 1
    return done


def _abandon(match: Match) -> int:
    reason = abandoned_reason(list(match.waiting_for or ()))
    waiting = Q(status=Match.Status.WAITING)
    return int(lifecycle.abort(match.id, match.game, reason, taken_from=waiting))
