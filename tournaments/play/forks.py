"""Forking a finished match at step N: a new unrated match that replays N events, then plays on.

A match of a duplicate deal is forked only once the whole deal is over
(``visibility.deal_over``): the fork would otherwise hand its seed and events out early.

The fork keeps the original's seed, so each step's random generator (derived
from the seed and the stream version) draws the same cards as the original
wherever the decisions are the same. Its stream begins with copies of the
original's first N events; the runner resumes it like any interrupted match.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction

from games.engine.platform_events import PLATFORM_EVENTS
from replays import store
from replays.store import NewEvent, StoredEvent
from tournaments.play import allowance, lifecycle, services
from tournaments.play.models import Match, Seat
from tournaments.play.services import Invalid
from tournaments.play.visibility import deal_over, is_over, seats_of, shows_bot


def decision_step(events: Sequence[StoredEvent], step: int) -> int:
    """The latest step at or before ``step`` where a seat is about to decide.

    A decision's consequences (flips, scoring, draws) are written with it; a
    stream cut between them would leave the engine half-way through its own
    work, so a fork always starts just before a decision.
    """
    for v in range(min(step, len(events) - 1), 0, -1):
        nxt = events[v]  # the event at version v + 1
        if nxt.metadata.get("actor") is not None and nxt.type not in PLATFORM_EVENTS:
            return v
    raise Invalid({"step": "no decision is taken at or before this step"})


def fork_match(
    *, user: Any, original: Match, step: int, seats: Sequence[Mapping[str, Any]] | None = None
) -> Match:
    """Create the fork (queued), its seats and its first events; the runner plays it on commit.

    ``seats`` gives each seat in table order: {"bot_version": id}, {"builtin": name},
    or {} to keep the original's player.
    """
    if not is_over(original):
        raise Invalid({"match": "only a match that is over (finished or aborted) can be forked"})
    if not deal_over(original):
        # The fork would copy the seed and the events: the cards the rest of the set still plays.
        raise Invalid(
            {
                "match": "this match is part of a duplicate deal whose other matches are still "
                "being played; it can be forked once they are all over"
            }
        )
    if not (user.is_staff or seats_of(user, original)):
        raise Invalid({"match": "only the owner of a bot in this match can fork it"})
    original_seats = list(
        Seat.objects.filter(match=original).select_related("bot_version__bot").order_by("number")
    )
    wanted = list(seats) if seats else [{} for _ in original_seats]
    if len(wanted) != len(original_seats):
        raise Invalid({"seats": f"this match has {len(original_seats)} seats, not {len(wanted)}"})
    if not 1 <= step < original.last_version:
        raise Invalid({"step": f"step must be between 1 and {original.last_version - 1}"})
    kept = [
        dict(w)
        if w
        else (
            {"bot_version": s.bot_version_id}
            if s.bot_version_id
            else {"human": True}  # the one who forks plays a person's seat on
            if s.player_id
            else {"builtin": s.builtin}
        )
        for w, s in zip(wanted, original_seats, strict=True)
    ]
    hidden = [
        s.number
        for w, s in zip(wanted, original_seats, strict=True)
        if not w and s.bot_version is not None and not shows_bot(user, s.bot_version.bot)
    ]
    if hidden:
        # Named without its version id, which would place the private bot among the versions.
        raise Invalid(
            {
                "seats": [
                    f"seat {n}: its bot is private; name a built-in or a bot of yours for it"
                    for n in hidden
                ]
            }
        )
    versions = services._seat_versions(user=user, game=original.game, seats=kept)
    events = store.read(original.id)
    step = decision_step(events, step)
    copied = [
        NewEvent(
            type=ev.type,
            payload=ev.payload,
            schema_version=ev.schema_version,
            metadata={
                **ev.metadata,
                "copied_from": {"match": str(original.id), "version": ev.version},
            },
        )
        for ev in events[:step]
    ]
    with transaction.atomic():
        allowance.check_matches(user)
        fork = lifecycle.do_create(
            seats=services.seat_rows(kept, versions, user=user),
            events=copied,
            game=original.game,
            options=original.options,
            seed=original.seed,
            rated=False,
            created_by=user,
            forked_from=original,
            forked_at=step,
            priority=services.priority_of(kept),
        )
    fork.refresh_from_db()
    return fork
