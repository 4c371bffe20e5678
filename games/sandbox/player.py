"""A sandboxed bot as a seat player of the match driver (games/engine/driver.py)."""

from __future__ import annotations

import random
from typing import Any

from games.engine.decision import Move
from games.engine.rules import Rules
from games.engine.types import Action, Outcome, Seat
from games.sandbox.seat import Decision, SeatController
from games.sandbox.verdicts import Verdict


class Sandboxed:
    """Asks the seat's bot process through its SeatController; never raises on bot behaviour."""

    external = True

    def __init__(self, controller: SeatController) -> None:
        self.controller = controller

    @property
    def strikes(self) -> int:
        return self.controller.strikes

    def move(self, rules: Rules[Any], state: Any, seat: Seat, rng: random.Random) -> Move:
        decision = self.controller.decide(
            rules.observe(state, seat),
            rules.legal(state, seat),
            default=lambda: rules.default_action(state, seat),
            check=lambda action: rules.check(state, seat, action),
        )
        return _move(decision, self.controller.time_bank)

    def strike(self, verdict: str, detail: str, default: Action) -> Move:
        decision = self.controller.strike(Verdict(verdict), detail, default)
        return _move(decision, self.controller.time_bank)

    def close(self, outcome: Outcome | None) -> str:
        return self.controller.end(outcome)


def _move(decision: Decision, bank: float) -> Move:
    return Move(
        decision.action,
        decision.verdict.value,
        decision.detail,
        decision.stderr,
        decision.elapsed,
        bank,
    )
