"""The automatic parts of a round, between decisions (rulebook "Sequence of a turn").

Each function appends events to ``out`` and folds them into the state as it
goes, so the next step sees the table as it now is.
"""

from __future__ import annotations

import random
from typing import Any

from games.brexit.cards import BLOCK, COUNTRY_SPECIFIC, KIND
from games.brexit.effects import has_target
from games.brexit.fold import FOLDS
from games.brexit.scoring import final_result, slot_results
from games.brexit.state import PLACEMENT, ROUND_LIMIT_REACHED, SIX_DEALS, State
from games.engine.events import event, private_event
from games.engine.rng import keyed_order, match_seed
from games.engine.types import Event

DEALS_TO_END = 6
"""B-18: the game ends after the round in which someone holds this many deals."""
ROUND_LIMIT = 60
"""B-31: the default ``max_rounds``; the game ends after this round's scoring whatever the deals."""


def emit(state: State, out: list[Event], ev: Event) -> None:
    FOLDS[ev["type"]](state, ev["payload"])
    out.append(ev)


def shuffled(cards: list[str], rng: random.Random) -> list[str]:
    """A uniformly random order: sorting by random keys is twice as fast as ``rng.shuffle``."""
    rand = rng.random
    return sorted(cards, key=lambda _card: rand())


def reshuffle(state: State, deck: str, rng: random.Random, out: list[Event]) -> None:
    """B-16: the matching discard pile becomes the deck, in an order only the log knows.

    The order is keyed by the deck and how many times it was rebuilt (not by the stream's
    length), card by card, so twin games rebuilding from piles that differ by a few cards
    still share the rest of the order (games/engine/rng.py). A search bot's rollouts pass
    their own generator, which has no match seed: they shuffle with it.
    """
    pile = state.country_discard if deck == "country" else state.negotiation_discard
    seed = match_seed(rng)
    if seed is None:
        order = shuffled(pile, rng)
    else:
        order = keyed_order(seed, f"deck:{deck}", state.reshuffles.get(deck, 0), pile)
    emit(
        state,
        out,
        private_event(
            "discard_reshuffled",
            {"deck": deck, "order": order},
            to=[],
            redacted={"deck": deck, "size": len(order)},
        ),
    )


def draw(state: State, seat: int, count: int, rng: random.Random, out: list[Event]) -> None:
    """Seat draws ``count`` cards, reshuffling on an empty deck; skipped if nothing is left."""
    while count:
        if not state.negotiation_deck:
            if not state.negotiation_discard:
                return
            reshuffle(state, "negotiation", rng, out)
        # Read after the reshuffle: it puts a new list in the state, the old one stays empty.
        deck = state.negotiation_deck
        k = min(count, len(deck))
        cards = deck[len(deck) - k :][::-1]
        emit(
            state,
            out,
            private_event(
                "cards_drawn",
                {"seat": seat, "cards": cards},
                to=[seat],
                redacted={"seat": seat, "count": k},
            ),
        )
        count -= k


def reveal(state: State, rng: random.Random, out: list[Event]) -> None:
    """Step 1: turn over one country fewer than there are players (E-B1, B-21)."""
    need = state.seats - 1
    revealed = False
    while need:
        if not state.country_deck:
            if not state.country_discard:
                break
            reshuffle(state, "country", rng, out)
        # Read after the reshuffle: it puts a new list in the state, the old one stays empty.
        deck = state.country_deck
        k = min(need, len(deck))
        emit(state, out, event("countries_revealed", {"countries": deck[len(deck) - k :][::-1]}))
        need -= k
        revealed = True
    if not revealed:  # no country left anywhere: the round still runs, with no slots
        emit(state, out, event("countries_revealed", {"countries": []}))


def start_round(state: State, number: int, start_seat: int, out: list[Event]) -> None:
    emit(state, out, event("round_started", {"round": number, "start_seat": start_seat}))


def proceed(state: State, rng: random.Random, out: list[Event]) -> None:
    """Everything automatic after a decision, up to the next decision or the end."""
    if state.phase == PLACEMENT:
        if state.placed_count < state.seats:
            return
        flipped = [
            [{"card": c, "slot": s} for c, s in zip(cards, slots, strict=True)]
            for cards, slots in zip(state.placed_cards, state.placed_slots, strict=True)
        ]
        emit(state, out, event("cards_flipped", {"placed": flipped}))
    while state.activations:
        act = state.activations[0]
        payload: dict[str, Any] = {"seat": act["seat"], "card": act["card"], "slot": act["slot"]}
        if KIND[act["card"]] == BLOCK:
            payload["effect"] = "block"
        elif not has_target(state, act):
            payload["effect"] = "none"
            payload["reason"] = "no target"
        else:
            return
        emit(state, out, event("effect_resolved", payload, actor=act["seat"]))
    end_round(state, rng, out)


def end_round(state: State, rng: random.Random, out: list[Event]) -> None:
    """Steps 5-11: score the slots, clear the table, then end the game or start the next round."""
    played = [c for cards in state.placed_cards for c in cards]
    emit(
        state,
        out,
        event(
            "round_scored",
            {
                "results": slot_results(state),
                "discarded": [c for c in played if KIND[c] != COUNTRY_SPECIFIC],
                "removed": [c for c in played if KIND[c] == COUNTRY_SPECIFIC],
            },
        ),
    )
    if any(len(d) >= DEALS_TO_END for d in state.deals):
        emit(state, out, event("game_ended", final_result(state, SIX_DEALS)))
        return
    # brexit-1 streams resumed by this engine have no max_rounds: they get the default.
    if state.round >= state.options.get("max_rounds", ROUND_LIMIT):
        emit(state, out, event("game_ended", final_result(state, ROUND_LIMIT_REACHED)))
        return
    # B-17: the start token moves left first, then everyone draws from the new starting player.
    n = state.seats
    start = (state.start_seat + 1) % n
    start_round(state, state.round + 1, start, out)
    for i in range(n):
        draw(state, (start + i) % n, 1, rng, out)
    reveal(state, rng, out)
