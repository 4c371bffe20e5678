"""Playing a match in memory: the same loop the platform's runner uses, without storage."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Generic

from games.engine.rng import step_rng
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
        """Apply one decision; raises IllegalAction (and changes nothing) if illegal."""
        new = self.rules.decide(self.state, seat, action, step_rng(self.seed, self.version))
        self.events.extend(new)
        return new

    def outcome(self) -> Outcome | None:
        return self.rules.outcome(self.state)

    def play_out(
        self, players: Sequence[Player], rng: random.Random, max_steps: int = 100_000
    ) -> Outcome:
        """Let trusted in-process ``players`` (one per seat) play to the end."""
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
