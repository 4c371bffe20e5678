"""Options (with the scenario set-ups used by tests) and the opening events."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from games.brexit.cards import AGENDAS, COUNTRIES, DECK_CARDS, KIND, NATIONS, STARTING_CARDS
from games.brexit.state import State
from games.brexit.turn import DEALS_TO_END, ROUND_LIMIT, draw, emit, reveal, shuffled, start_round
from games.engine.errors import BadOptions
from games.engine.events import event, private_event
from games.engine.rng import step_rng
from games.engine.types import Event

ENGINE_VERSION = "brexit-3"
"""brexit-2: the round limit (B-31), the ``deals`` scenario option, no empty event after a reshuffle.
brexit-3: reshuffles keyed by the deck and its count (games/engine/rng.py), the state counting
them and each seat's decisions (so brexit-2 snapshots, keyed by this version, are not loaded);
stored events mean what they meant: every stream folds as before."""
MIN_SEATS, MAX_SEATS = 2, 5  # B-21: 3-5 official, 2 unofficial
STARTING_DRAW = 2
MAX_ROUNDS_BOUND = 1000
"""The largest ``max_rounds`` accepted: a round of 5 passive seats is about 12 events."""

SCENARIO_OPTIONS = ("country_deck", "negotiation_deck", "hands", "agendas", "deals", "start_seat")
"""Options that stack the game for a test or a rulebook situation; observe() never shows them."""
DEFAULTS: dict[str, Any] = {"max_rounds": ROUND_LIMIT, **dict.fromkeys(SCENARIO_OPTIONS)}


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


def _deals(seats: int, deals: Any) -> list[list[str]] | None:
    """The ``deals`` scenario option checked: per seat, countries nobody else holds, fewer than 6."""
    if deals is None:
        return None
    if not isinstance(deals, list) or len(deals) != seats:
        raise BadOptions(f"option 'deals' must give one list of trade deals per seat ({seats})")
    held: set[str] = set()
    checked = []
    for seat, d in enumerate(deals):
        checked.append(
            _card_list("deals", d, set(COUNTRIES) - held, "a country card that no other seat holds")
        )
        if len(d) >= DEALS_TO_END:
            raise BadOptions(
                f"option 'deals': seat {seat} holds {len(d)} deals: the game would already be over "
                f"(B-18); at most {DEALS_TO_END - 1}"
            )
        held.update(d)
    return checked


def validate(seats: int, options: Mapping[str, Any] | None) -> dict[str, Any]:
    if type(seats) is not int or not MIN_SEATS <= seats <= MAX_SEATS:
        raise BadOptions(f"Brexit seats 2 to 5 players (B-21), not {seats!r}")
    given = dict(options or {})
    unknown = sorted(set(given) - set(DEFAULTS))
    if unknown:
        raise BadOptions(f"unknown option {unknown[0]!r}; known options: {', '.join(DEFAULTS)}")
    opts = {**DEFAULTS, **given}
    limit = opts["max_rounds"]
    if type(limit) is not int or not 1 <= limit <= MAX_ROUNDS_BOUND:
        raise BadOptions(
            f"option 'max_rounds' must be a whole number of rounds, 1 to {MAX_ROUNDS_BOUND} "
            f"(B-31), not {limit!r}"
        )
    held = _deals(seats, opts["deals"])
    opts["deals"] = held
    if opts["country_deck"] is not None:
        opts["country_deck"] = _card_list(
            "country_deck", opts["country_deck"], COUNTRIES, "a country card"
        )
        for c in opts["country_deck"]:
            if held is not None and any(c in d for d in held):
                raise BadOptions(
                    f"option 'country_deck': {c!r} is both in 'country_deck' and held in 'deals'"
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
    held = {c for d in state.deals for c in d}
    emit(
        state,
        out,
        _deck("country", [c for c in COUNTRIES if c not in held], opts["country_deck"], rng),
    )
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
