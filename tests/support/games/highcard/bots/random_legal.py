"""Keeps or swaps at random."""

from __future__ import annotations

import random

from games.engine.types import Action
from tests.support.games.highcard.rules import State


def act(state: State, seat: int, rng: random.Random) -> Action:
    return {"swap": rng.random() < 0.5}
