"""The one phase dispatcher: runs the automatic steps after a decision, up to the next one.

Each phase module does its part and returns the next step (games/brasilis/steps.py);
only this loop moves from one phase to another, so the phases never import each
other (boardgame.io's flow processor, Brexit's ``proceed()``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

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
        step = STEPS[type(step)](state, out, rng, step)


def _turn(state: State, out: list[Event], rng: random.Random, step: Turn) -> Next:
    return dispute.next_turn(state, out, step.start)


def _dispute_end(state: State, out: list[Event], rng: random.Random, step: DisputeEnd) -> Next:
    return attribution.end_dispute(state, out)


def _attribution(state: State, out: list[Event], rng: random.Random, step: Attribution) -> Next:
    return attribution.attribute(state, out, step.seat, step.chooser, step.totals)


def _effects(state: State, out: list[Event], rng: random.Random, step: Effects) -> Next:
    return attribution.effects(state, out, rng, step.seat, step.news)


def _cleared(state: State, out: list[Event], rng: random.Random, step: Cleared) -> Next:
    return pizza.after_dispute(state, out)


def _before_reveal(state: State, out: list[Event], rng: random.Random, step: BeforeReveal) -> Next:
    return pizza.before_reveal(state, out, rng)


def _reveal(state: State, out: list[Event], rng: random.Random, step: Reveal) -> Next:
    return pizza.reveal(state, out, rng, step.card, step.source)


def _round_start(state: State, out: list[Event], rng: random.Random, step: RoundStart) -> Next:
    return pizza.start_round(state, out, step.number, step.revealer)


def _auction_start(state: State, out: list[Event], rng: random.Random, step: AuctionStart) -> Next:
    return auction.start(state, out, rng)


def _next_lot(state: State, out: list[Event], rng: random.Random, step: NextLot) -> Next:
    return auction.next_lot(state, out)


STEPS: dict[type, Callable[[State, list[Event], random.Random, Any], Next]] = {
    Turn: _turn,
    DisputeEnd: _dispute_end,
    Attribution: _attribution,
    Effects: _effects,
    Cleared: _cleared,
    BeforeReveal: _before_reveal,
    Reveal: _reveal,
    RoundStart: _round_start,
    AuctionStart: _auction_start,
    NextLot: _next_lot,
}
"""Each step to the phase function that runs it (a table rather than a match: it is the hot loop)."""
