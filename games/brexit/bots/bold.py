"""A bold Brexit player: cheap, optimistic bids on every revealed country it can reach.

It assumes little of its rivals (a face-down card is guessed at 1.2 points, a
seat still to place at 1.5, so a lone 2 is often its whole bid) and prices its
cards cheaply (0.05 points of score per card point), so it contests almost
every slot, spreading its hand thin: many small bids, some lost to a bigger
one. It never Blocks (it bids on slots rather than denying them); its effects
are greedy's. It reads only its observation and legal actions, like ``greedy``.
"""

from __future__ import annotations

import random
from typing import Any

from games.brexit.bots import greedy
from games.brexit.observe import observe
from games.brexit.rules import RULES
from games.brexit.state import State
from games.engine.types import Action, Legal

CARD_GUESS = 1.2
LATER_GUESS = 1.5
MARGIN = 0
"""No safety margin: a margin of 1 made it spend its hand on a few slots (measured: 11% wins
against three greedy players instead of 39%)."""
SPEND_COST = 0.05
NEVER_BLOCK = 99
"""No slot ever shows this many rival cards: Blocks stay in hand."""


def choose(obs: dict[str, Any], legal: Legal) -> Action:
    """The bold action from what one seat may see."""
    if legal["kind"] == "placement":
        return greedy.place(
            obs,
            spend_cost=SPEND_COST,
            margin=MARGIN,
            card_guess=CARD_GUESS,
            later_guess=LATER_GUESS,
            block_at=NEVER_BLOCK,
        )
    return greedy.choose_effect(obs, legal)


def act(state: State, seat: int, rng: random.Random) -> Action:
    """In-process entry point: only this seat's observation and legal actions are used."""
    return choose(observe(state, seat), RULES.legal(state, seat))
