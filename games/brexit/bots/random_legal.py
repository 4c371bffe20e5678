"""A fast random legal player: the benchmark's and the sandbox's baseline opponent."""

from __future__ import annotations

import random

from games.brexit.cards import BLOCK, KIND, TAKE
from games.brexit.effects import NONE, targets
from games.brexit.state import PLACEMENT, State
from games.engine.types import Action

PLACE_CHANCE = 0.3
"""Each card is placed with this chance: most stay in hand, so bids stay small."""
RARE_CHANCE = 0.05
"""Blocks and Takes are rarely placed: they undo progress (a Block kills its slot, a Take removes a
deal), and placed as freely as the rest they make games about 25% longer."""
RARE = frozenset({BLOCK, TAKE})


def act(state: State, seat: int, rng: random.Random) -> Action:
    # Sampled directly rather than through legal(): enumerating placements is exponential.
    if state.phase == PLACEMENT:
        n = len(state.slots)
        if not n:
            return {"place": []}
        rand = rng.random
        return {
            "place": [
                {"card": c, "slot": int(rand() * n)}
                for c in state.hands[seat]
                if rand() < (RARE_CHANCE if KIND[c] in RARE else PLACE_CHANCE)
            ]
        }
    # Uniform over the enumerated effect actions, "none" included.
    options = targets(state, state.activations[0])
    i = int(rng.random() * (len(options) + 1))
    return dict(NONE) if i == len(options) else options[i]
