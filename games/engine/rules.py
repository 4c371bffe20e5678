"""The contract a game implements: pure functions over plain data.

Call order, for a match::

    events = rules.setup(seats, seed, options)        # the opening events
    state = replay(rules, events)                     # fold them into a new state
    while rules.pending(state):
        for p in rules.pending(state):                # several seats when simultaneous
            action = ...                              # a bot looks at rules.observe(state, seat)
            events += rules.decide(state, p["seat"], action, step_rng(seed, len(events)))
    rules.outcome(state)

``decide`` validates first (raising :class:`IllegalAction` and changing
nothing), then produces the events the action causes, up to the next decision,
folding each one into ``state`` as it goes. So after ``decide`` returns, the
state equals ``replay`` of every event so far: this is tested for every game.
States are mutated in place by ``fold`` because copying a whole state per
event is ruinously slow (about 50x); callers that need a copy (search bots)
use ``load(dump(state))``.

Chance is keyed by what it draws (games/engine/rng.py): ``decide`` gets the step's
generator, from which ``match_seed`` recovers the seed, and keys each draw by its
purpose and a count its state folds. A game may also offer
``decisions(state, seat) -> int``, how many decisions ``seat`` has been asked for
(folded from the events); the driver then keys a built-in bot's generator by it
instead of by the stream position (:func:`decisions_made`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Protocol, TypeVar

from games.engine.types import JSON, Action, Event, Legal, Outcome, Pending, Seat

StateT = TypeVar("StateT")


class Rules(Protocol[StateT]):
    """One game's rules. Implemented by ``games.<name>.rules``."""

    name: str
    engine_version: str
    """Changes when the meaning of stored events changes; written in event metadata."""
    min_seats: int
    max_seats: int
    end_reveals: Mapping[str, frozenset[str]]
    """Event type -> the payload keys that show hidden cards once the game is over (the final
    hands, the hidden agendas). Public at the end of a match, they are withheld while another
    match dealt the same cards still plays (a duplicate deal); the outcome's ``detail`` is
    withheld alike."""

    def options(self, seats: int, options: Mapping[str, Any] | None) -> JSON:
        """Validated options with defaults filled in; raises BadOptions."""
        ...

    def setup(self, seats: int, seed: int, options: Mapping[str, Any] | None = None) -> list[Event]:
        """The opening events: every shuffle, deal and draw with its outcome."""
        ...

    def new_state(self) -> StateT:
        """The empty state that the opening events are folded into."""
        ...

    def fold(self, state: StateT, event: Event) -> StateT:
        """Apply one event. Never consults a random generator or a decision."""
        ...

    def pending(self, state: StateT) -> list[Pending]:
        """Who must decide now; empty when the game is over."""
        ...

    def legal(self, state: StateT, seat: Seat) -> Legal:
        """The legal actions of ``seat`` now (enumerated, or a described space).

        A seat that is not pending gets ``{"kind": "none", "actions": [], "space": None}``.
        """
        ...

    def check(self, state: StateT, seat: Seat, action: Action) -> None:
        """Raise IllegalAction with the exact reason if ``action`` is not legal."""
        ...

    def decide(self, state: StateT, seat: Seat, action: Action, rng: random.Random) -> list[Event]:
        """Validate, then fold and return the events the action causes."""
        ...

    def default_action(self, state: StateT, seat: Seat) -> Action:
        """What a faulty or disqualified bot plays instead (documented per game)."""
        ...

    def observe(self, state: StateT, seat: Seat | None) -> JSON:
        """The information set of ``seat`` as JSON; ``None`` is the spectator view."""
        ...

    def outcome(self, state: StateT) -> Outcome | None:
        """Final scores and ranks once the game is over, else None."""
        ...

    def dump(self, state: StateT) -> JSON:
        """The state as JSON (for snapshots)."""
        ...

    def load(self, data: JSON) -> StateT:
        """The state back from :meth:`dump`."""
        ...


def decisions_made(rules: Rules[StateT], state: StateT, seat: Seat) -> int | None:
    """How many decisions ``seat`` has been asked for, if the game counts them (an optional
    member: games without it, such as the tests' own, keep their bots keyed by the stream)."""
    count = getattr(rules, "decisions", None)
    return None if count is None else int(count(state, seat))
