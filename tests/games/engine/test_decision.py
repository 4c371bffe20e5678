"""One decision (games/engine/decision.py: take): the step's generator, the verdict first, and the
same events the match loop records for the same move."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.engine.decision import Move, take
from games.engine.driver import MatchDriver, MemorySink
from games.engine.errors import IllegalAction
from games.engine.match import replay
from games.engine.platform_events import BOT_VERDICT
from games.engine.registry import get
from games.engine.rng import step_rng
from games.engine.rules import Rules
from games.engine.types import Action, Outcome, Seat

pytestmark = pytest.mark.unit


class FirstLegal:
    """An external player (its verdicts are recorded) that plays the first enumerated action."""

    external = True
    strikes = 0

    def move(self, rules: Rules[Any], state: Any, seat: Seat, rng: random.Random) -> Move:
        legal = rules.legal(state, seat)
        return Move(
            rules.default_action(state, seat) if not legal["actions"] else legal["actions"][0]
        )

    def strike(self, verdict: str, detail: str, default: Action) -> Move:
        raise AssertionError("a legal action was refused")

    def close(self, outcome: Outcome | None) -> str:
        return ""


def test_take_records_the_verdict_then_the_rules_events_from_the_step_s_generator() -> None:
    rules = get("brexit").rules
    opening = rules.setup(3, 7, {})
    state = replay(rules, opening)
    seat = rules.pending(state)[0]["seat"]
    action = rules.default_action(state, seat)
    expected = rules.decide(replay(rules, opening), seat, action, step_rng(7, len(opening)))

    events = take(
        rules,
        state,
        seat,
        Move(action, elapsed=0.25),
        seed=7,
        version=len(opening),
        strikes=1,
        recorded=True,
    )
    verdict, *decided = events
    assert verdict["type"] == BOT_VERDICT and decided == expected
    assert verdict["payload"] == {
        "seat": seat,
        "verdict": "ok",
        "step": len(opening),
        "strikes": 1,
        "detail": "",
        "elapsed_ms": 250,
    }
    unrecorded = take(
        rules,
        replay(rules, opening),
        seat,
        Move(action),
        seed=7,
        version=len(opening),
        strikes=0,
        recorded=False,
    )
    assert unrecorded == expected


def test_take_raises_the_rules_refusal_and_the_caller_decides_what_follows() -> None:
    rules = get("brexit").rules
    state = replay(rules, rules.setup(3, 7, {}))
    seat = rules.pending(state)[0]["seat"]
    with pytest.raises(IllegalAction):
        take(rules, state, seat, Move({"nonsense": 1}), seed=7, version=0, strikes=0, recorded=True)


def test_the_match_loop_records_each_decision_as_take_makes_it() -> None:
    """Replaying a match decision by decision through take gives the loop's own stream."""
    rules = get("brasilis").rules
    sink = MemorySink()
    players = [FirstLegal() for _ in range(3)]
    MatchDriver(rules, seats=3, seed=5, options={}, players=players, sink=sink).run()
    stream = sink.events
    opening = rules.setup(3, 5, {})
    rebuilt = list(opening)
    state = replay(rules, opening)
    while pending := [p["seat"] for p in rules.pending(state)]:
        # As the loop does: every pending seat is asked, then each move is taken (folded) in turn.
        moves = [players[seat].move(rules, state, seat, random.Random(0)) for seat in pending]
        for seat, move in zip(pending, moves, strict=True):
            rebuilt += take(
                rules, state, seat, move, seed=5, version=len(rebuilt), strikes=0, recorded=True
            )
    # The loop's verdicts time the bot; the rest is the same, event for event.
    for ev in (*stream, *rebuilt):
        if ev["type"] == BOT_VERDICT:
            ev["payload"].pop("elapsed_ms")
    assert rebuilt == stream[: len(rebuilt)] and stream[len(rebuilt)]["type"] == "match_finished"
