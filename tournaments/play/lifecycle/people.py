"""A match that waits for people: suspended by its worker, moved on by a person's action or the clock.

The runner plays the bots until every pending seat left is a person's; the match loop then
flushes and raises ``Suspended``, and ``do_suspend`` marks the match ``waiting`` (whose
seats, since which step, until when) and lets its worker go. A person's action
(``take_action``) is checked by the same rules as a bot's and becomes events through the same
function (``games.engine.decision.take``: the step's generator, a verdict ``ok``, the rules'
events), appended with the expected version in one transaction that holds the match row;
then the match waits on (the others of a sealed bid, or the person's next decision) or is
queued for the bots' turn. Past a decision's deadline the match is queued instead and the
runner plays the default action (``do_queue_late`` when the person comes late,
``do_queue_expired`` when the clock finds it).
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models.functions import Now
from django.utils import timezone

from games.engine.decision import Move, refusal, take
from games.engine.errors import IllegalAction
from games.engine.registry import get
from games.engine.types import Event
from replays import snapshots, store
from replays.store import ConcurrencyError, NewEvent
from tournaments.play import dispatch
from tournaments.play.lifecycle.refusals import Conflict, Refused
from tournaments.play.models import Match, Seat

log = logging.getLogger(__name__)


def do_suspend(match: Match, owner: str, seats: list[int], step: int) -> bool:
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


@dataclass(frozen=True)
class Taken:
    """A person's action checked and turned into events, not stored yet."""

    events: list[Event]
    """Its verdict, then the rules' events."""
    version: int
    """The stream's version they follow (the decision's step)."""
    state: Any
    """The game state after them."""


def take_action(match_id: uuid.UUID, seat: int, action: dict[str, Any], step: int | None) -> Match:
    """Apply a person's action for ``seat`` as the runner applies a bot's, and queue the bots.

    ``step``: the decision the person answers (``waiting_step`` when they were asked). Past
    the deadline the default is played for them instead (Conflict). Raises Refused or
    Conflict; then nothing of the action is stored.
    """
    deadline = do_queue_late(match_id)
    if deadline is not None:
        raise Conflict(
            f"the deadline for this decision passed at {deadline.isoformat()}: the default action"
            " is played for your seat"
        )
    with transaction.atomic():
        # The row lock orders concurrent submissions (two tabs, two people in a sealed bid):
        # each sees the events the one before it stored.
        match = Match.objects.select_for_update().get(pk=match_id)
        taken = check_action(match, seat, step, action)
        do_action(match, seat, taken)
    match.refresh_from_db()
    return match


def check_action(match: Match, seat: int, step: int | None, action: dict[str, Any]) -> Taken:
    """The events of ``seat``'s ``action`` on the match as it is now (its row locked); Refused
    (illegal, or an engine that fails on it, as for a bot) or Conflict (not asked now)."""
    check_waiting(match, seat, step)
    rules = get(match.game).rules
    state, version = state_now(match)
    started = (match.deadline or timezone.now()) - timedelta(seconds=match.human_move_seconds)
    elapsed = (timezone.now() - started).total_seconds()
    move = Move(action, elapsed=max(0.0, elapsed))
    try:
        rules.check(state, seat, action)
        events = take(
            rules, state, seat, move, seed=match.seed, version=version, strikes=0, recorded=True
        )
    except IllegalAction as exc:
        raise Refused(refusal(exc)) from None
    except Exception as exc:  # as for a bot: an engine that fails on an action refuses it
        log.warning("match %s: the engine failed on seat %s's action", match.id, seat)
        raise Refused(refusal(exc)) from None
    return Taken(events, version, state)


def check_waiting(match: Match, seat: int, step: int | None) -> None:
    """The match waits for ``seat``'s decision ``step`` (None: whichever it is asked now)."""
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


def state_now(match: Match) -> tuple[Any, int]:
    """The game state now (a fresh object: deciding folds into it), and the stream's version.

    From the nearest snapshot (the viewer's, every 50 events): a person's match is read
    once per decision, and folding its whole stream each time grows with the game.
    """
    rules = get(match.game).rules
    return snapshots.state_at_step(rules, match.id, match.last_version)


def do_action(match: Match, seat: int, taken: Taken) -> None:
    """Append the action's events with the expected version (Conflict if the stream moved on),
    then keep waiting for people or queue the bots' turn. Inside the transaction that locked
    the match row (``take_action``)."""
    engine_version = get(match.game).rules.engine_version
    events = [NewEvent.from_engine(ev, engine_version=engine_version) for ev in taken.events]
    try:
        store.append(match.id, events, taken.version)
    except ConcurrencyError:
        raise Conflict("the match moved on while this action was applied; ask again") from None
    _after_action(match, seat, taken.state, taken.version + len(taken.events))


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


def do_queue_late(match_id: uuid.UUID) -> datetime | None:
    """Queue the match if the decision it waits for is past its deadline, and return that
    deadline (None: not late). The person is here, so the default is played at once, ahead of
    other work, rather than within the reaper's interval."""
    late = Match.objects.filter(
        id=match_id, status=Match.Status.WAITING, deadline__lt=timezone.now()
    )
    deadline = late.values_list("deadline", flat=True).first()
    if deadline is None:
        return None
    if late.update(status=Match.Status.QUEUED, priority=Match.Priority.PERSON):
        transaction.on_commit(lambda: dispatch.play_match(str(match_id), Match.Priority.PERSON))
    return deadline


def do_queue_expired(match_id: uuid.UUID, now: datetime) -> bool:
    """Queue a match whose person let the deadline pass before ``now`` (the clock, beat): the
    default is played in the same turn as everyone's work, not ahead of it (a person's class
    is for a person waiting on the bots' reply). False if it no longer waits so."""
    return bool(
        Match.objects.filter(id=match_id, status=Match.Status.WAITING, deadline__lt=now).update(
            status=Match.Status.QUEUED, priority=Match.Priority.PLAY
        )
    )
