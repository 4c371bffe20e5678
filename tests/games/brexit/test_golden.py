"""A recorded game (tests/golden/brexit_game.json) must keep folding to its recorded outcome."""

from __future__ import annotations

import json
from pathlib import Path

from games.brexit.rules import RULES
from games.engine.match import replay

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "brexit_game.json"


def test_golden_game_folds_to_its_recorded_outcome() -> None:
    data = json.loads(GOLDEN.read_text(encoding="utf-8"))
    state = replay(RULES, data["events"])
    assert RULES.pending(state) == []
    assert RULES.outcome(state) == data["outcome"]
    assert data["events"][0]["payload"]["engine_version"] == RULES.engine_version


def test_golden_game_opening_is_what_setup_produces() -> None:
    data = json.loads(GOLDEN.read_text(encoding="utf-8"))
    opening = RULES.setup(data["seats"], data["seed"])
    assert data["events"][: len(opening)] == json.loads(json.dumps(opening))


GOLDEN_V1 = GOLDEN.with_name("brexit_game_v1.json")


def test_a_brexit_1_stream_still_folds_to_its_recorded_outcome() -> None:
    """Matches stored before B-31 have no max_rounds, no deals option and no end reason."""
    data = json.loads(GOLDEN_V1.read_text(encoding="utf-8"))
    assert data["events"][0]["payload"]["engine_version"] == "brexit-1"
    state = replay(RULES, data["events"])
    outcome = RULES.outcome(state)
    assert outcome is not None and RULES.pending(state) == []
    # Such a game could only end with six deals; the rest is exactly what was recorded.
    assert outcome["detail"].pop("reason") == "six_deals"
    assert outcome == data["outcome"]
    assert RULES.observe(state, 0)["max_rounds"] == 60
