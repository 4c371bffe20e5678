"""Applying one event to the state: no randomness, no decisions, no copies.

Each event type has one small function; ``fold`` dispatches on the type.
Everything random (shuffle orders, draws) is already in the payload.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.brexit.cards import ACTIVATING, COUNTRY_SPECIFIC_CARDS, NATIONS, STARTING_CARDS
from games.brexit.state import EFFECT, OVER, PLACEMENT, SIX_DEALS, Activation, State
from games.engine.types import Event

Payload = dict[str, Any]


def _game_started(state: State, p: Payload) -> None:
    seats = p["seats"]
    state.seats = seats
    # Copied (two levels deep is all options have) so the state never shares lists with the event.
    state.options = {
        k: [list(x) if isinstance(x, list) else x for x in v] if isinstance(v, list) else v
        for k, v in p["options"].items()
    }
    state.nations = nations = NATIONS[:seats]
    fixed = p["options"]["hands"]
    state.hands = (
        [list(h) for h in fixed]
        if fixed is not None
        else [list(STARTING_CARDS[n]) for n in nations]
    )
    in_hand = {c for h in state.hands for c in h}
    state.unused = [c for c in COUNTRY_SPECIFIC_CARDS if c not in in_hand]
    state.agendas = [None] * seats
    # "deals" (a scenario option) is absent from brexit-1 streams.
    held = p["options"].get("deals")
    state.deals = [list(d) for d in held] if held is not None else [[] for _ in range(seats)]
    state.placed_cards = [[] for _ in range(seats)]
    state.placed_slots = [[] for _ in range(seats)]
    state.decisions = [0] * seats


def _deck_shuffled(state: State, p: Payload) -> None:
    # The payload lists the deck top first; the state keeps the top at the end.
    order = p["order"][::-1]
    deck = p["deck"]
    if deck == "country":
        state.country_deck = order
        state.known_top = 0
    elif deck == "negotiation":
        state.negotiation_deck = order
    else:
        state.agenda_deck = order


def _discard_reshuffled(state: State, p: Payload) -> None:
    _deck_shuffled(state, p)
    state.reshuffles[p["deck"]] = state.reshuffles.get(p["deck"], 0) + 1
    if p["deck"] == "country":
        state.country_discard = []
    else:
        state.negotiation_discard = []


def _start_seat_chosen(state: State, p: Payload) -> None:
    state.start_seat = p["seat"]


def _agenda_drawn(state: State, p: Payload) -> None:
    state.agenda_deck.pop()
    state.agendas[p["seat"]] = p["agenda"]


def _cards_drawn(state: State, p: Payload) -> None:
    cards = p["cards"]
    del state.negotiation_deck[len(state.negotiation_deck) - len(cards) :]
    state.hands[p["seat"]].extend(cards)


def _round_started(state: State, p: Payload) -> None:
    state.round = p["round"]
    state.start_seat = p["start_seat"]


def _countries_revealed(state: State, p: Payload) -> None:
    countries = p["countries"]
    n = len(countries)
    deck = state.country_deck
    del deck[len(deck) - n :]
    state.known_top = max(0, state.known_top - n)
    state.slots.extend(countries)
    state.blocked.extend([False] * n)
    state.phase = PLACEMENT
    state.turn = state.start_seat
    state.placed_count = 0


def _cards_placed(state: State, p: Payload) -> None:
    seat = p["seat"]
    hand = state.hands[seat]
    cards = state.placed_cards[seat]
    slots = state.placed_slots[seat]
    for item in p["place"]:
        hand.remove(item["card"])
        cards.append(item["card"])
        slots.append(item["slot"])
    state.placed_count += 1
    state.turn = (seat + 1) % state.seats
    state.decisions[seat] += 1


def _cards_flipped(state: State, p: Payload) -> None:
    # B-8: seat order from the starting player, each player's cards in placement order.
    state.flipped = True
    state.phase = EFFECT
    n = state.seats
    queue: list[Activation] = []
    for i in range(n):
        seat = (state.start_seat + i) % n
        cards = state.placed_cards[seat]
        if cards:
            slots = state.placed_slots[seat]
            for j, card in enumerate(cards):
                if card in ACTIVATING:
                    queue.append({"seat": seat, "card": card, "slot": slots[j]})
    state.activations = queue


def _effect_resolved(state: State, p: Payload) -> None:
    state.decisions[state.activations.pop(0)["seat"]] += 1
    effect = p["effect"]
    if effect == "none":
        return
    if effect == "block":
        state.blocked[p["slot"]] = True
    elif effect == "take":
        state.deals[p["target"]].remove(p["deal"])
        state.country_deck.append(p["deal"])
        state.known_top += 1
    elif effect in ("switch_your", "switch_another"):
        owner = p["seat"] if effect == "switch_your" else p["target"]
        slot = p["slot"]
        deals = state.deals[owner]
        deals.remove(p["deal"])
        deals.append(state.slots[slot])
        state.slots[slot] = p["deal"]
    elif effect == "switch_two":
        first, second = p["first"], p["second"]
        a, b = state.deals[first["seat"]], state.deals[second["seat"]]
        a.remove(first["deal"])
        b.remove(second["deal"])
        a.append(second["deal"])
        b.append(first["deal"])


def _round_scored(state: State, p: Payload) -> None:
    # Steps 5-8 in one event: deals won or discarded (B-14), then the table cleared (B-15).
    for result in p["results"]:
        winner = result["winner"]
        if winner is None:
            state.country_discard.append(result["country"])
        else:
            state.deals[winner].append(result["country"])
    state.slots = []
    state.blocked = []
    state.negotiation_discard.extend(p["discarded"])
    state.removed.extend(p["removed"])
    for seat in range(state.seats):
        state.placed_cards[seat] = []
        state.placed_slots[seat] = []
    state.flipped = False


def _game_ended(state: State, p: Payload) -> None:
    state.phase = OVER
    # The state must not share lists with the stored event; the payload is two levels deep.
    state.result = {
        # brexit-1 streams have no reason: they could only end with six deals.
        "reason": p.get("reason", SIX_DEALS),
        "scores": list(p["scores"]),
        "ranks": list(p["ranks"]),
        "detail": {k: list(v) for k, v in p["detail"].items()},
    }


FOLDS: dict[str, Callable[[State, Payload], None]] = {
    "game_started": _game_started,
    "deck_shuffled": _deck_shuffled,
    "discard_reshuffled": _discard_reshuffled,
    "start_seat_chosen": _start_seat_chosen,
    "agenda_drawn": _agenda_drawn,
    "cards_drawn": _cards_drawn,
    "round_started": _round_started,
    "countries_revealed": _countries_revealed,
    "cards_placed": _cards_placed,
    "cards_flipped": _cards_flipped,
    "effect_resolved": _effect_resolved,
    "round_scored": _round_scored,
    "game_ended": _game_ended,
}


def fold(state: State, ev: Event) -> State:
    FOLDS[ev["type"]](state, ev["payload"])
    return state
