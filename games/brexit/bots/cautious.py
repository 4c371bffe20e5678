"""A cautious Brexit player: few, safe bids on the deals its agenda favours, and Blocks to deny.

It assumes the worst of its rivals (a face-down card is guessed near the top
value, 2.6 points, and a seat still to place at 3), so it only bids where it
expects to win, and it prices its cards dearly (0.3 points of score per card
point), keeping a full hand for the countries that carry its agenda's symbol.
It Blocks any slot a rival is contesting with even one card that it is not
contesting itself, and uses an effect only when it gains at least a whole
point. It reads only its observation and legal actions, like ``greedy``.
"""

from __future__ import annotations

import random
from typing import Any

from games.brexit.bots import greedy
from games.brexit.observe import observe
from games.brexit.rules import RULES
from games.brexit.state import State
from games.engine.types import Action, Legal

CARD_GUESS = 2.6
"""A rival's face-down card is guessed near the top value (most are 2, some 3)."""
LATER_GUESS = 3.0
"""A seat still to place is guessed to put a 3 on any slot it wants."""
SPEND_COST = 0.3
"""Card points are dear: only deals worth 2 (agenda symbol) pay for a contested bid."""
BLOCK_AT = 1
"""One visible rival card on a slot it does not contest is enough to Block it."""
EFFECT_AT_LEAST = 0.99
"""An effect is used only when it gains a whole point of deal count or more."""


def choose(obs: dict[str, Any], legal: Legal) -> Action:
    """The cautious action from what one seat may see."""
    if legal["kind"] == "placement":
        return greedy.place(
            obs,
            spend_cost=SPEND_COST,
            card_guess=CARD_GUESS,
            later_guess=LATER_GUESS,
            block_at=BLOCK_AT,
        )
    return greedy.choose_effect(obs, legal, at_least=EFFECT_AT_LEAST)


def act(state: State, seat: int, rng: random.Random) -> Action:
    """In-process entry point: only this seat's observation and legal actions are used."""
    return choose(observe(state, seat), RULES.legal(state, seat))
