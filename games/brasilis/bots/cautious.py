"""A cautious Bra$ilis politician: dreads scandals, spends its hand and money sparingly.

It plays greedy's one-step rule with other weights: a scandal counts twice its
votes (so it spends cards to push scandals onto rivals more readily than it
fights for good news), influence cards are dear (0.12 votes a point, 0.4 for a
multiplier or interference card), it bids only for the Lawyer ($200) and the
Advertiser ($100) and keeps the rest of its money, and its Lawyer cancels every
scandal that costs anything at all. It reads only its observation and legal
actions, like ``greedy``.
"""

from __future__ import annotations

import random

from games.brasilis.bots.greedy import Style, choose
from games.brasilis.rules import RULES
from games.brasilis.state import State
from games.engine.types import Action

STYLE = Style(
    card_cost=0.12,
    special_cost=0.4,
    scandal_weight=2.0,
    bids={"marketeer": 0, "advertiser": 100, "lawyer": 200, "palanque": 0, "colonel": 0},
    lawyer_below=0.0,
)


def act(state: State, seat: int, rng: random.Random) -> Action:
    """In-process entry point: only this seat's observation and legal actions are used."""
    return choose(RULES.observe(state, seat), RULES.legal(state, seat), STYLE)
