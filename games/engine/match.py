"""Playing a match in memory, between trusted in-process players: simulate, the bots' tests and
``bench engine`` use it.

It is not the platform's match loop (``driver.MatchDriver``, which every stored match, ``manage.py
play`` and validation's smoke matches go through), but each decision becomes events the same way:
through ``decision.take``, so the rules decide with the same step generator (from the seed and
the stream version) and a LocalMatch's game events are the ones the driver would store for the
same actions. What differs is the loop around it (see :meth:`LocalMatch.play_out`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Generic

from games.engine.decision import Move, take
from games.engine.rules import Rules, StateT
from games.engine.types import Action, Event, Outcome, Pending, Seat

Player = Callable[[Any, Seat, random.Random], Action]
"""A trusted in-process player: (state, seat, rng) -> action."""


def replay(rules: Rules[StateT], events: Iterable[Event], state: StateT | None = None) -> StateT:
    """Fold ``events`` into ``state`` (a new state when omitted)."""
    if state is None:
        state = rules.new_state()
    fold = rules.fold
    for ev in events:
        state = fold(state, ev)
    return state


class LocalMatch(Generic[StateT]):
    """A match held in memory: its events, its live state and its seed."""

    def __init__(
        self,
        rules: Rules[StateT],
        seats: int,
        seed: int,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        self.rules = rules
        self.seed = seed
        self.events: list[Event] = rules.setup(seats, seed, options)
        self.state: StateT = replay(rules, self.events)

    @property
    def version(self) -> int:
        """The stream version: how many events have been recorded."""
        return len(self.events)

    def pending(self) -> list[Pending]:
        return self.rules.pending(self.state)

    def play(self, seat: Seat, action: Action) -> list[Event]:
        """Apply one decision; raises IllegalAction (and changes nothing) if illegal.

        No verdict is recorded (as for the driver's built-in bots): the events are the rules'.
        """
        new = take(
            self.rules,
            self.state,
            seat,
            Move(action),
            seed=self.seed,
            version=self.version,
            strikes=0,
            recorded=False,
        )
        self.events.extend(new)
        return new

    def outcome(self) -> Outcome | None:
        return self.rules.outcome(self.state)

    def play_out(
        self, players: Sequence[Player], rng: random.Random, max_steps: int = 100_000
    ) -> Outcome:
        """Let trusted in-process ``players`` (one per seat) play to the end.

        Unlike the driver's loop: every player draws from the one ``rng`` given, in the order the
        seats decide (the driver gives each built-in bot its own generator per decision,
        ``rng.bot_rng``, so the same seed and bots do not play the same game there); an illegal
        action raises instead of costing a strike and playing the default; nothing is flushed,
        no verdict or platform event (the match's end) is recorded, and the only limit is
        ``max_steps``.
        """
        for _ in range(max_steps):
            pending = self.rules.pending(self.state)
            if not pending:
                result = self.rules.outcome(self.state)
                assert result is not None, "a game with no pending decision must have an outcome"
                return result
            for p in pending:
                seat = p["seat"]
                self.play(seat, players[seat](self.state, seat, rng))
        raise RuntimeError(f"game did not end within {max_steps} steps")
