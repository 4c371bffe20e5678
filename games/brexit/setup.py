"""Options (with the scenario set-ups used by tests) and the opening events."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from games.brexit.cards import AGENDAS, COUNTRIES, DECK_CARDS, KIND, NATIONS, STARTING_CARDS
from games.brexit.state import State
from games.brexit.turn import draw, emit, reveal, shuffled, start_round
from games.engine.errors import BadOptions
from games.engine.events import event, private_event
from games.engine.rng import step_rng
from games.engine.types import Event

ENGINE_VERSION = "brexit-1"
MIN_SEATS, MAX_SEATS = 2, 5  # B-21: 3-5 official, 2 unofficial
STARTING_DRAW = 2

SCENARIO_OPTIONS = ("country_deck", "negotiation_deck", "hands", "agendas", "start_seat")
"""Options that stack the game for a test or a rulebook situation; observe() never shows them."""
DEFAULTS: dict[str, Any] = dict.fromkeys(SCENARIO_OPTIONS)


def _card_list(name: str, value: Any, allowed: set[str] | list[str], what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise BadOptions(f"option {name!r} must be a list of card ids")
    for c in value:
        if c not in allowed:
            raise BadOptions(f"option {name!r}: {c!r} is not {what}")
    if len(set(value)) != len(value):
        dup = next(c for c in value if value.count(c) > 1)
        raise BadOptions(f"option {name!r}: card {dup!r} appears twice")
    return list(value)


def validate(seats: int, options: Mapping[str, Any] | None) -> dict[str, Any]:
    if type(seats) is not int or not MIN_SEATS <= seats <= MAX_SEATS:
        raise BadOptions(f"Brexit seats 2 to 5 players (B-21), not {seats!r}")
    given = dict(options or {})
    unknown = sorted(set(given) - set(DEFAULTS))
    if unknown:
        raise BadOptions(f"unknown option {unknown[0]!r}; known options: {', '.join(DEFAULTS)}")
    opts = {**DEFAULTS, **given}
    if opts["country_deck"] is not None:
        opts["country_deck"] = _card_list(
            "country_deck", opts["country_deck"], COUNTRIES, "a country card"
        )
    in_hands: set[str] = set()
    hands = opts["hands"]
    if hands is not None:
        if not isinstance(hands, list) or len(hands) != seats:
            raise BadOptions(f"option 'hands' must list one hand per seat ({seats})")
        checked = []
        for h in hands:
            checked.append(
                _card_list(
                    "hands", h, KIND.keys() - in_hands, "a negotiation card in no other hand"
                )
            )
            in_hands.update(h)
        opts["hands"] = checked
    else:
        in_hands = {c for n in NATIONS[:seats] for c in STARTING_CARDS[n]}
    if opts["negotiation_deck"] is not None:
        opts["negotiation_deck"] = _card_list(
            "negotiation_deck",
            opts["negotiation_deck"],
            set(DECK_CARDS) - in_hands,
            "an effect or negotiating card outside the starting hands (B-4)",
        )
    if opts["agendas"] is not None:
        agendas = opts["agendas"]
        if not isinstance(agendas, list) or len(agendas) != seats:
            raise BadOptions(f"option 'agendas' must list one agenda per seat ({seats})")
        opts["agendas"] = _card_list("agendas", agendas, AGENDAS, "an agenda (B-25: no sharing)")
    start = opts["start_seat"]
    if start is not None and (type(start) is not int or not 0 <= start < seats):
        raise BadOptions(f"option 'start_seat' must be a seat 0..{seats - 1}, not {start!r}")
    return opts


def _deck(name: str, cards: list[str], top: list[str] | None, rng: random.Random) -> Event:
    """A shuffled deck, the stacked cards (if any) on top in the given order."""
    top = top or []
    stacked = set(top)
    order = top + shuffled([c for c in cards if c not in stacked], rng)
    return private_event(
        "deck_shuffled",
        {"deck": name, "order": order},
        to=[],
        redacted={"deck": name, "size": len(order)},
    )


def _game_started(seats: int, opts: dict[str, Any]) -> Event:
    """The opening event; a stacked scenario's cards are seen by nobody until the end."""
    payload = {
        "seats": seats,
        "options": opts,
        "engine_version": ENGINE_VERSION,
        "nations": NATIONS[:seats],
    }
    scenario = sorted(k for k in SCENARIO_OPTIONS if opts[k] is not None)
    if not scenario:
        return event("game_started", payload)
    public = {k: v for k, v in opts.items() if k not in SCENARIO_OPTIONS}
    return private_event(
        "game_started",
        payload,
        to=[],
        redacted={**payload, "options": public, "scenario": scenario},
    )


def setup(seats: int, seed: int, options: Mapping[str, Any] | None = None) -> list[Event]:
    opts = validate(seats, options)
    rng = step_rng(seed, 0)
    state = State()
    out: list[Event] = []
    emit(state, out, _game_started(seats, opts))
    # B-22: the "youngest player" is a seeded pick, logged.
    start = opts["start_seat"] if opts["start_seat"] is not None else rng.randrange(seats)
    emit(state, out, event("start_seat_chosen", {"seat": start}))
    order = [(start + i) % seats for i in range(seats)]
    in_hands = {c for h in state.hands for c in h}
    emit(state, out, _deck("country", COUNTRIES, opts["country_deck"], rng))
    # B-3/B-4: the deck is every effect and negotiating card not dealt (unplayed nations' Blocks included).
    deck_cards = [c for c in DECK_CARDS if c not in in_hands]
    emit(state, out, _deck("negotiation", deck_cards, opts["negotiation_deck"], rng))
    fixed = opts["agendas"]
    emit(state, out, _deck("agenda", AGENDAS, [fixed[s] for s in order] if fixed else None, rng))
    for seat in order:
        agenda = state.agenda_deck[-1]
        emit(
            state,
            out,
            private_event(
                "agenda_drawn", {"seat": seat, "agenda": agenda}, to=[seat], redacted={"seat": seat}
            ),
        )
    if opts["hands"] is None:
        for seat in order:
            draw(state, seat, STARTING_DRAW, rng, out)
    start_round(state, 1, start, out)
    reveal(state, rng, out)
    return out
