"""The RULES object the registry imports: this game's functions, wired to the engine contract."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from games.brexit import decide as _decide
from games.brexit import observe as _observe
from games.brexit import setup as _setup
from games.brexit import state as _state
from games.brexit.fold import FOLDS
from games.brexit.state import OVER, State
from games.engine.types import JSON, Action, Event, Legal, Outcome, Pending


class BrexitRules:
    name = "brexit"
    engine_version = _setup.ENGINE_VERSION
    end_reveals: Mapping[str, frozenset[str]] = {
        "game_ended": frozenset({"detail"})
    }  # every seat's hidden agenda
    min_seats = _setup.MIN_SEATS
    max_seats = _setup.MAX_SEATS

    def options(self, seats: int, options: Mapping[str, Any] | None) -> JSON:
        return _setup.validate(seats, options)

    def setup(self, seats: int, seed: int, options: Mapping[str, Any] | None = None) -> list[Event]:
        return _setup.setup(seats, seed, options)

    def new_state(self) -> State:
        return State()

    def fold(self, state: State, event: Event) -> State:
        FOLDS[event["type"]](state, event["payload"])
        return state

    def pending(self, state: State) -> list[Pending]:
        return _decide.pending(state)

    def legal(self, state: State, seat: int) -> Legal:
        return _decide.legal(state, seat)

    def check(self, state: State, seat: int, action: Action) -> None:
        _decide.check(state, seat, action)

    def decide(self, state: State, seat: int, action: Action, rng: random.Random) -> list[Event]:
        return _decide.decide(state, seat, action, rng)

    def default_action(self, state: State, seat: int) -> Action:
        return _decide.default_action(state, seat)

    def decisions(self, state: State, seat: int) -> int:
        """The seat's placements and effects so far (games/engine/rules.py: decisions_made)."""
        return state.decisions[seat] if seat < len(state.decisions) else 0

    def observe(self, state: State, seat: int | None) -> JSON:
        return _observe.observe(state, seat)

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != OVER or state.result is None:
            return None
        r = state.result
        return {
            "scores": [float(s) for s in r["scores"]],
            "ranks": list(r["ranks"]),
            # Copied: the platform stores the outcome; the reason says how the game ended (B-31).
            "detail": {**r["detail"], "reason": r["reason"]},
        }

    def dump(self, state: State) -> JSON:
        return _state.dump(state)

    def load(self, data: JSON) -> State:
        return _state.load(data)


RULES = BrexitRules()
