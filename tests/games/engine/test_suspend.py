"""A seat whose player answers later (a person): the loop flushes and suspends, and a resumed
match goes on from its stored events with its seats' statistics."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import pytest

from games.engine.builtin import make_player
from games.engine.decision import Move
from games.engine.driver import InProcess, MatchDriver, MemorySink, Suspended
from games.engine.registry import get
from games.engine.types import Action, Event, Outcome


@dataclass
class Later:
    """Answers only with what it was given: the default once per ``defaults``, else later."""

    defaults: int = 0
    external: bool = True
    strikes: int = 0
    asked: list[int] = field(default_factory=list)

    def move(self, rules: Any, state: Any, seat: int, rng: random.Random) -> Move | None:
        self.asked.append(seat)
        if not self.defaults:
            return None
        self.defaults -= 1
        return Move(rules.default_action(state, seat), verdict="timeout", detail="late")

    def strike(self, verdict: str, detail: str, default: Action) -> Move:
        raise AssertionError("the default action is legal")

    def close(self, outcome: Outcome | None) -> str:
        return ""


def driver(stored: list[Event], person: Later) -> tuple[MatchDriver, MemorySink]:
    sink = MemorySink()
    sink.events = list(stored)  # what is already durable
    rules = get("brexit").rules
    bots = [InProcess(make_player("brexit", "greedy", seed=k)) for k in (1, 2)]
    d = MatchDriver(
        rules,
        seats=3,
        seed=4,
        options={"max_rounds": 2},
        players=[person, *bots],
        stored=stored,
        sink=sink,
    )
    return d, sink


def test_the_loop_suspends_after_flushing_and_resumes_with_its_statistics() -> None:
    d, sink = driver([], Later())
    with pytest.raises(Suspended) as waiting:
        d.run()
    assert waiting.value.seats == [0] and waiting.value.step == len(sink.events) > 0
    stored = list(sink.events)

    # Resumed with the deadline passed: the default with its verdict, then it waits again.
    d, sink = driver(stored, Later(defaults=1))
    with pytest.raises(Suspended) as again:
        d.run()
    verdicts = [e for e in sink.events[len(stored) :] if e["type"] == "bot_verdict"]
    assert [v["payload"]["verdict"] for v in verdicts] == ["timeout"]
    assert again.value.step == len(sink.events) > waiting.value.step

    # A third run counts the verdicts already stored, so the seat's statistics go on.
    d, _ = driver(list(sink.events), Later())
    assert d.stats[0].verdicts == {"timeout": 1}
    assert d.stats[1].verdicts == {}  # built-ins have no verdicts
