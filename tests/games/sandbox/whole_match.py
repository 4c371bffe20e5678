"""A whole match of a real game with every seat played by one bot folder in the sandbox."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from games.engine import step_rng
from games.engine.registry import get
from games.sandbox import SeatController, Verdict


@dataclass
class Played:
    decisions: int = 0
    first_logs: dict[int, str] = field(default_factory=dict)
    """Each seat's first decision's log (what its start and first act printed)."""


def play_sandboxed(folder: Path, game: str, seats: int, *, seed: int) -> Played:
    """Play ``game`` to its end with the bot in ``folder`` in every seat; every decision must
    be the bot's own (verdict ok, no restart)."""
    rules = get(game).rules
    events = rules.setup(seats, seed)
    state = rules.new_state()
    for ev in events:
        rules.fold(state, ev)
    controllers = [
        SeatController(folder, game=game, seat=s, seats=seats, options={}) for s in range(seats)
    ]
    played = Played()
    try:
        while pending := rules.pending(state):
            for p in pending:
                seat = p["seat"]
                got = controllers[seat].decide(
                    rules.observe(state, seat),
                    rules.legal(state, seat),
                    default=lambda seat=seat: rules.default_action(state, seat),  # type: ignore[misc]
                    check=lambda a, seat=seat: rules.check(state, seat, a),  # type: ignore[misc]
                )
                assert got.verdict is Verdict.OK, (got.verdict, got.detail, got.stderr)
                played.decisions += 1
                played.first_logs.setdefault(seat, got.stderr)
                events += rules.decide(state, seat, got.action, step_rng(seed, len(events)))
        assert rules.outcome(state) is not None
    finally:
        for c in controllers:
            c.end(None)
    assert all(c.restarts == 0 for c in controllers)
    return played
