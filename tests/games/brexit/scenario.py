"""Stacked Brexit tables for the rulings tests: fixed hands, decks, agendas and start seat."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from games.brexit.cards import COUNTRIES, NEGOTIATION_CARDS
from games.brexit.rules import RULES
from games.brexit.state import State
from games.engine.match import LocalMatch, replay
from games.engine.types import Action, Event

Placement = Sequence[tuple[str, int]]


def table(
    seats: int = 3,
    *,
    hands: list[list[str]],
    countries: list[str] | None = None,
    negotiation: list[str] | None = None,
    agendas: list[str] | None = None,
    start: int = 0,
    seed: int = 0,
    **more: Any,
) -> LocalMatch[State]:
    """A stacked table; ``more`` are further options (``deals``, ``max_rounds``...)."""
    options: dict[str, Any] = {"hands": hands, "start_seat": start, **more}
    held = {c for deals in more.get("deals") or [] for c in deals}
    options["country_deck"] = (
        countries
        if countries is not None
        else [c for c in (f"C{i:02d}" for i in range(1, 37)) if c not in held]
    )
    if negotiation is not None:
        options["negotiation_deck"] = negotiation
    if agendas is not None:
        options["agendas"] = agendas
    return LocalMatch(RULES, seats, seed=seed, options=options)


def place(cards: Placement) -> Action:
    return {"place": [{"card": c, "slot": s} for c, s in cards]}


def place_all(m: LocalMatch[State], placements: Mapping[int, Placement]) -> list[Event]:
    """Every seat places once (nothing unless listed), in the order the engine asks."""
    events: list[Event] = []
    for _ in range(m.state.seats):
        assert m.pending()[0]["kind"] == "placement"
        seat = m.pending()[0]["seat"]
        events += m.play(seat, place(placements.get(seat, ())))
    return events


def resolve(m: LocalMatch[State], choices: Sequence[Action] = ()) -> list[Event]:
    """Answer effect decisions with ``choices`` in order, then "none" for the rest of the phase."""
    events: list[Event] = []
    todo = list(choices)
    while m.pending() and m.pending()[0]["kind"] == "effect":
        # Stop at the next round: a fresh placement means this effect phase is over.
        seat = m.pending()[0]["seat"]
        events += m.play(seat, todo.pop(0) if todo else {"effect": "none"})
    assert not todo, f"unused effect choices {todo}"
    return events


def play_round(
    m: LocalMatch[State], placements: Mapping[int, Placement], choices: Sequence[Action] = ()
) -> list[Event]:
    return place_all(m, placements) + resolve(m, choices)


def of_type(events: list[Event], type_: str) -> list[Event]:
    return [e for e in events if e["type"] == type_]


def scored(events: list[Event]) -> list[dict[str, Any]]:
    (ev,) = of_type(events, "round_scored")
    return ev["payload"]["results"]  # type: ignore[no-any-return]


def assert_conserved(state: State) -> None:
    """36 countries; 15 + 30 + 39 negotiation-type cards (B-1, B-3), each exactly once."""
    countries = (
        state.country_deck
        + state.country_discard
        + state.slots
        + [d for ds in state.deals for d in ds]
    )
    assert sorted(countries) == sorted(COUNTRIES)
    cards = (
        [c for h in state.hands for c in h]
        + state.negotiation_deck
        + state.negotiation_discard
        + state.removed
        + state.unused
        + [c for cs in state.placed_cards for c in cs]
    )
    assert sorted(cards) == sorted(NEGOTIATION_CARDS)


def assert_replays(m: LocalMatch[State]) -> None:
    stored = json.loads(json.dumps(m.events))
    assert replay(RULES, stored) == m.state
