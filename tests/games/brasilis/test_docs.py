"""The JSON in docs/games/brasilis.md is checked against the engine."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from games.brasilis.rules import RULES
from games.engine.match import LocalMatch

DOC = Path(__file__).parents[3] / "docs" / "games" / "brasilis.md"


def blocks() -> dict[str, Any]:
    text = DOC.read_text()
    return {
        m[1]: json.loads(m[2])
        for m in re.finditer(r"<!-- doc:(\w+) -->\s*```json\n(.*?)```", text, re.S)
    }


def test_doc_cites_every_ruling():
    text = DOC.read_text()
    missing = [f"S-{i}" for i in range(1, 36) if not re.search(rf"\bS-{i}\b", text)]
    assert not missing


def test_all_json_blocks_parse_and_are_labelled():
    text = DOC.read_text()
    assert text.count("```json") == len(blocks()) == 6


def test_worked_example_replays_from_the_stated_setup():
    doc = blocks()
    m = LocalMatch(RULES, 4, 0, doc["scenario"])
    first_seat, first = doc["actions"][0]
    assert RULES.legal(m.state, 0)["kind"] == "dispute"
    events = m.play(first_seat, first)
    assert events == doc["events"]
    assert RULES.observe(m.state, 1) == doc["observation"]
    assert RULES.legal(m.state, 1) == doc["legal"]
    for seat, action in doc["actions"][1:]:
        m.play(seat, action)
    s = m.state
    got = {
        "image": s.image,
        "money": s.money,
        "fury": s.fury,
        "piles": s.piles,
        "power_discard_size": len(s.power_discard),
        "revealer": s.revealer,
    }
    assert got == doc["result"]


def test_observation_example_has_exactly_the_keys_observe_produces():
    doc = blocks()
    m = LocalMatch(RULES, 5, 3)
    assert set(RULES.observe(m.state, 0)) == set(doc["observation"])
