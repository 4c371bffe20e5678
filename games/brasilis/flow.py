"""The one phase dispatcher: runs the automatic steps after a decision, up to the next one.

Each phase module does its part and returns the next step (games/brasilis/steps.py);
only this loop moves from one phase to another, so the phases never import each
other (boardgame.io's flow processor, Brexit's ``proceed()``).
"""

from __future__ import annotations

import random

from games.brasilis import attribution, auction, dispute, pizza
from games.brasilis.state import State
from games.brasilis.steps import (
    Attribution,
    AuctionStart,
    BeforeReveal,
    Cleared,
    DisputeEnd,
    Effects,
    Next,
    NextLot,
    Reveal,
    RoundStart,
    Turn,
)
from games.engine.types import Event


def proceed(state: State, out: list[Event], rng: random.Random, step: Next) -> None:
    """Run ``step`` and whatever follows it until a politician must decide or the game is over."""
    while step is not None:
        match step:
            case Turn(start):
                step = dispute.next_turn(state, out, start)
            case DisputeEnd():
                step = attribution.end_dispute(state, out)
            case Attribution(seat, chooser, totals):
                step = attribution.attribute(state, out, seat, chooser, totals)
            case Effects(seat, news):
                step = attribution.effects(state, out, rng, seat, news)
            case Cleared():
                step = pizza.after_dispute(state, out)
            case BeforeReveal():
                step = pizza.before_reveal(state, out, rng)
            case Reveal(card, source):
                step = pizza.reveal(state, out, rng, card, source)
            case RoundStart(number, revealer):
                step = pizza.start_round(state, out, number, revealer)
            case AuctionStart():
                step = auction.start(state, out, rng)
            case NextLot():
                step = auction.next_lot(state, out)
