"""The population's Fury and the Revolution (S-25, S-26, S-27)."""

from __future__ import annotations

import random

from games.brasilis import tiebreak
from games.brasilis.cards import is_green
from games.brasilis.fold import emit
from games.brasilis.state import State
from games.engine.events import event, private_event
from games.engine.rng import keyed_order, match_seed
from games.engine.types import Event


def add_fury(state: State, out: list[Event], rng: random.Random, points: int) -> None:
    """Move Fury towards REVOLUTION; reaching it revolts once and the excess is lost (S-25)."""
    if points <= 0:
        return
    value = state.fury + points
    if value >= state.fury_max:
        emit(state, out, event("fury", {"value": state.fury_max}))
        resolve(state, out, rng, "fury")
    else:
        emit(state, out, event("fury", {"value": value}))


def resolve(state: State, out: list[Event], rng: random.Random, cause: str) -> None:
    """Every politician tied for the worst image loses one random green card (no tie-break)."""
    worst_image = min(state.image)
    worst = [s for s in range(state.n) if state.image[s] == worst_image]
    drawn_by = tiebreak.benefited(state, range(state.n))  # the ceremony, for the log only
    emit(state, out, event("revolution", {"worst": worst, "drawn_by": drawn_by, "cause": cause}))
    seed = match_seed(rng)
    for seat in worst:
        greens = [c for c in state.piles[seat] if is_green(c)]
        if greens:
            # Keyed by the revolution's count and the seat, card by card (games/engine/rng.py).
            card = (
                greens[rng.randrange(len(greens))]
                if seed is None
                else keyed_order(seed, f"revolution:{seat}", state.drawn["revolution"], greens)[0]
            )
            emit(
                state,
                out,
                private_event(
                    "news_lost", {"seat": seat, "card": card}, to=[seat], redacted={"seat": seat}
                ),
            )
    emit(state, out, event("fury", {"value": 0}))
