"""A bold Bra$ilis politician: fights for every news with cards and money to spare.

It plays greedy's one-step rule with other weights: influence cards are cheap
(0.03 votes a point, 0.1 for a multiplier or interference card), so it enters
nearly every dispute it can win and answers every raise; it sinks up to $700
into the Marketeer (a vote), $200 into the Advertiser and $100 into the Lawyer
and Palanque. Its Lawyer rule is greedy's. It reads only its observation and
legal actions, like ``greedy``.
"""

from __future__ import annotations

import random

from games.brasilis.bots.greedy import Style, choose
from games.brasilis.rules import RULES
from games.brasilis.state import State
from games.engine.types import Action

STYLE = Style(
    card_cost=0.03,
    special_cost=0.1,
    bids={"marketeer": 700, "advertiser": 200, "lawyer": 100, "palanque": 100, "colonel": 0},
)


def act(state: State, seat: int, rng: random.Random) -> Action:
    """In-process entry point: only this seat's observation and legal actions are used."""
    return choose(RULES.observe(state, seat), RULES.legal(state, seat), STYLE)
