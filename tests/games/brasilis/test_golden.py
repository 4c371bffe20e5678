"""A recorded game keeps folding to its recorded outcome (stored events must stay meaningful)."""

from __future__ import annotations

import json
from pathlib import Path

from games.brasilis.rules import RULES
from games.engine.match import replay

GOLDEN = Path(__file__).parents[2] / "golden" / "brasilis_game.json"


def test_golden_game_folds_to_recorded_outcome():
    data = json.loads(GOLDEN.read_text())
    assert data["engine_version"] == RULES.engine_version
    state = replay(RULES, data["events"])
    assert RULES.pending(state) == []
    assert RULES.outcome(state) == data["outcome"]
    assert data["events"][0]["type"] == "game_started"
