"""Power card draws and the hand refill before every reveal (S-14, S-23)."""

from __future__ import annotations

import random

from games.brasilis.cards import INFLUENCE_VALUE, REFILL_AT_MOST
from games.brasilis.fold import emit
from games.brasilis.state import State
from games.engine.events import event, private_event
from games.engine.rng import keyed_order, match_seed
from games.engine.types import Event


def draw(state: State, out: list[Event], rng: random.Random, seat: int, count: int) -> None:
    """Draw ``count`` cards; an empty deck is rebuilt from the shuffled discard (S-14)."""
    while count > 0:
        if not state.power_deck:
            if not state.power_discard:
                return  # both empty: the remaining draws are skipped
            order = _reshuffled(state, rng)
            emit(
                state,
                out,
                private_event(
                    "power_shuffled",
                    {"order": order, "from_discard": True},
                    to=[],
                    redacted={"size": len(order), "from_discard": True},
                ),
            )
        cards = state.power_deck[:count]
        emit(state, out, dealt(seat, cards))
        count -= len(cards)


def _reshuffled(state: State, rng: random.Random) -> list[str]:
    """The discard in a new order, keyed by how many times the deck was rebuilt, card by card
    (twins rebuilding from slightly different piles share the rest of the order); a search
    bot's rollouts, whose generator has no match seed, shuffle with their own."""
    seed = match_seed(rng)
    if seed is None:
        order = list(state.power_discard)
        rng.shuffle(order)
        return order
    return keyed_order(seed, "deck:power", state.drawn.get("power", 0), state.power_discard)


def check(state: State, out: list[Event], rng: random.Random) -> None:
    """Refill everyone when too few politicians still hold cards, HEAVEN +1 / HELL -1 (S-23).

    Only influence cards count as holding cards (S-37): the others cannot open a dispute.
    """
    n = state.n
    holders = sum(1 for hand in state.hands if any(c in INFLUENCE_VALUE for c in hand))
    variant = "less_strategy" if state.options.get("less_strategy") else "default"
    if holders > REFILL_AT_MOST[variant][n]:
        return
    emit(state, out, event("refill", {"holders": holders}))
    top = state.image_max
    for i in range(n):
        seat = (state.revealer + i) % n
        image = state.image[seat]
        target = state.hand_size + (1 if image == top else -1 if image == -top else 0)
        missing = target - len(state.hands[seat])
        if missing > 0:
            draw(state, out, rng, seat, missing)
        if image in (top, -top):
            emit(state, out, event("image", {"seat": seat, "value": 0, "reason": "refill"}))


def dealt(seat: int, cards: list[str]) -> Event:
    """Power cards dealt to ``seat``: which ones only that seat sees."""
    return private_event(
        "dealt",
        {"seat": seat, "cards": cards},
        to=[seat],
        redacted={"seat": seat, "count": len(cards)},
    )
