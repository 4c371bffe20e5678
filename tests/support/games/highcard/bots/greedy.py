"""Swaps a card below the deck's middle value, keeps the rest: its own card is all it reads."""

from __future__ import annotations

import random

from games.engine.types import Action
from tests.support.games.highcard.rules import State, value


def act(state: State, seat: int, rng: random.Random) -> Action:
    card = state.hands[seat]
    return {"swap": card is not None and value(card) < 5}
