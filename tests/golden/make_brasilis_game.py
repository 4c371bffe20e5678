"""Write tests/golden/brasilis_game.json once: one full 4-player game's events and outcome.

Run from the repository root: PYTHONPATH=. .venv/bin/python tests/golden/make_brasilis_game.py
Re-run only when the meaning of stored events changes (and bump ENGINE_VERSION).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from games.brasilis.bots.random_legal import act
from games.brasilis.rules import RULES
from games.engine.match import LocalMatch

SEATS, SEED = 4, 2026


def main() -> None:
    match = LocalMatch(RULES, SEATS, SEED)
    outcome = match.play_out([act] * SEATS, random.Random(SEED))
    data = {
        "game": "brasilis",
        "engine_version": RULES.engine_version,
        "seats": SEATS,
        "seed": SEED,
        "outcome": outcome,
        "events": match.events,
    }
    path = Path(__file__).with_name("brasilis_game.json")
    path.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    print(f"wrote {path} ({len(match.events)} events)")


if __name__ == "__main__":
    main()
