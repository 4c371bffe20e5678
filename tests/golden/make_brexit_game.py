"""Write tests/golden/brexit_game.json: the events of one full 4-player random game.

brexit_game_v1.json beside it is the same kind of game recorded by engine brexit-1; it is kept
(never regenerated) to show that streams stored before a rules change still fold.

Run once (``.venv/bin/python tests/golden/make_brexit_game.py``) and commit the
result; tests/games/brexit/test_golden.py checks that stored streams keep
folding to the recorded outcome as the engine evolves.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from games.brexit.bots.random_legal import act
from games.brexit.rules import RULES
from games.engine.match import LocalMatch

SEATS, SEED = 4, 2024


def main() -> None:
    match = LocalMatch(RULES, SEATS, seed=SEED)
    outcome = match.play_out([act] * SEATS, random.Random(SEED))
    data = {
        "game": "brexit",
        "engine_version": RULES.engine_version,
        "seats": SEATS,
        "seed": SEED,
        "outcome": outcome,
        "events": match.events,
    }
    path = Path(__file__).with_name("brexit_game.json")
    path.write_text(json.dumps(data, indent=None, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {path} ({len(match.events)} events, outcome {outcome['scores']})")


if __name__ == "__main__":
    main()
