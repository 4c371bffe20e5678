"""The JSON in docs/games/brasilis.md is checked against the engine."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from games.brasilis.rules import RULES
from games.engine.errors import BadOptions
from games.engine.events import view
from games.engine.match import LocalMatch

DOC = Path(__file__).parents[3] / "docs" / "games" / "brasilis.md"


def blocks() -> dict[str, Any]:
    text = DOC.read_text()
    return {
        m[1]: json.loads(m[2])
        for m in re.finditer(r"<!-- doc:(\w+) -->\s*```json\n(.*?)```", text, re.S)
    }


def test_doc_states_every_ruling():
    text = DOC.read_text()
    missing = [f"S-{i}" for i in range(1, 39) if not re.search(rf"\*\*S-{i}\*\* ", text)]
    assert not missing


def test_doc_needs_nothing_outside_the_repository():
    text = DOC.read_text()
    for outside in ("shared/", "RULINGS", "seeds/"):
        assert outside not in text


def test_all_json_blocks_parse_and_are_labelled():
    text = DOC.read_text()
    assert text.count("```json") == len(blocks()) == 9


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


def test_hidden_card_example_shows_each_seats_view():
    doc = blocks()
    m = LocalMatch(RULES, 4, 0, doc["hidden_scenario"])
    events = []
    for seat, action in doc["hidden_actions"]:
        events = m.play(seat, action)
    eliminated = next(ev for ev in events if ev["type"] == "eliminated")
    assert [view(eliminated, 0), view(eliminated, 1)] == doc["hidden_views"]
    for seat in (1, 2, 3, None):
        assert view(eliminated, seat) == doc["hidden_views"][1]
        assert RULES.observe(m.state, seat)["power_discard"] == [{"id": None, "kind": "hidden"}]


def _most_rounds_accepted(seats: int, media_control: bool) -> int:
    """The largest More Your Way rounds the engine accepts (searched, not computed)."""
    rounds = 1
    while True:
        options = {"media_control": media_control, "more_your_way": {"rounds": rounds + 1}}
        try:
            RULES.options(seats, options)
        except BadOptions:
            return rounds
        rounds += 1


def test_the_s38_limits_the_doc_names_are_the_engines():
    text = " ".join(DOC.read_text().split())
    found = re.search(
        r"(\d+) \(3 politicians\), (\d+) \(4\), (\d+) \(5\), (\d+) \(6\); "
        r"with Media Control (\d+), (\d+), (\d+), (\d+)\.",
        text,
    )
    assert found is not None
    named = [int(n) for n in found.groups()]
    engine = [_most_rounds_accepted(n, mc) for mc in (False, True) for n in (3, 4, 5, 6)]
    assert named == engine == [15, 11, 9, 7, 11, 9, 7, 6]
