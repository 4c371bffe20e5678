"""Setting up exact rulebook positions with scenario options, and playing them step by step."""

from __future__ import annotations

import json
from typing import Any

from games.brasilis.cards import POWER_KIND
from games.brasilis.rules import RULES
from games.brasilis.state import State
from games.engine.match import LocalMatch, replay
from games.engine.types import Event


def start(
    seats: int = 4, seed: int = 0, options: dict[str, Any] | None = None, **scenario: Any
) -> LocalMatch[State]:
    opts = dict(options or {})
    if scenario:
        opts["scenario"] = scenario
    return LocalMatch(RULES, seats, seed, opts)


def card(m: LocalMatch[State], seat: int, kind: str) -> str:
    for c in m.state.hands[seat]:
        if POWER_KIND[c] == kind:
            return c
    raise AssertionError(f"seat {seat} holds no {kind!r}: {m.state.hands[seat]}")


def play(m: LocalMatch[State], seat: int, kind: str, target: int, **extra: Any) -> list[Event]:
    return m.play(seat, {"play": card(m, seat, kind), "target": target, **extra})


def lawyer_decision() -> LocalMatch[State]:
    """Round 2, seat 0 holds the Lawyer and wins the dispute for news A01 (a scandal: image -2,
    3 negative votes): the Lawyer decision is pending."""
    m = start(
        4,
        round=2,
        aids=["lawyer", None, None, None],
        money=[500, 0, 0, 0],
        wallet_order=[0, 1, 2, 3],
        news_deck=["A01"],
        hands=[["5"], ["1"], ["1"], ["1"]],
        reveal_in_order=True,
    )
    play(m, 0, "5", 0)
    play(m, 1, "1", 1)
    m.play(2, {"pass": True})
    m.play(3, {"pass": True})
    assert pending(m) == [(0, "lawyer")]
    return m


def stack_values(m: LocalMatch[State], seat: int) -> list[int | None]:
    return [e["value"] for e in RULES.observe(m.state, None)["stacks"][seat]]


def types(events: list[Event]) -> list[str]:
    return [e["type"] for e in events]


def of_type(events: list[Event], kind: str) -> list[dict[str, Any]]:
    return [e["payload"] for e in events if e["type"] == kind]


def pending(m: LocalMatch[State]) -> list[tuple[int, str]]:
    return [(p["seat"], p["kind"]) for p in m.pending()]


def assert_replays(m: LocalMatch[State]) -> None:
    stored = json.loads(json.dumps(m.events))
    assert replay(RULES, stored) == m.state
