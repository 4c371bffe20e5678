"""The table of one Brexit match, as plain mutable data that compares by value.

Every field is JSON-native (lists, dicts, str, int, bool, None) so that
``dump`` is a copy and ``load`` is a constructor call. Decks are lists whose
*end* is the top, because drawing is ``pop()``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, TypedDict

from games.engine.plain import copied

PLACEMENT = "placement"
EFFECT = "effect"
OVER = "over"

SIX_DEALS = "six_deals"
"""Why a game ended (``game_ended.reason``): someone holds 6 trade deals (B-18)..."""
ROUND_LIMIT_REACHED = "round_limit"
"""... or the last round allowed by ``max_rounds`` was scored (B-31)."""


class Activation(TypedDict):
    """One effect card waiting to activate (B-8), with its owner and slot."""

    seat: int
    card: str
    slot: int


@dataclass
class State:
    seats: int = 0
    options: dict[str, Any] = field(default_factory=dict)
    nations: list[str] = field(default_factory=list)
    hands: list[list[str]] = field(default_factory=list)
    agendas: list[str | None] = field(default_factory=list)
    agenda_deck: list[str] = field(default_factory=list)
    deals: list[list[str]] = field(default_factory=list)
    country_deck: list[str] = field(default_factory=list)
    known_top: int = 0
    """How many cards on top of the country deck everyone knows (put there by Takes, B-10/B-23)."""
    negotiation_deck: list[str] = field(default_factory=list)
    country_discard: list[str] = field(default_factory=list)
    negotiation_discard: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    """Played country-specific cards, out of the game for good (B-15)."""
    unused: list[str] = field(default_factory=list)
    """Country-specific cards of nations nobody plays (or left out of fixed hands)."""
    start_seat: int = 0
    round: int = 0
    phase: str = ""
    turn: int = 0
    """The seat whose placement is awaited (phase "placement")."""
    placed_count: int = 0
    slots: list[str] = field(default_factory=list)
    blocked: list[bool] = field(default_factory=list)
    placed_cards: list[list[str]] = field(default_factory=list)
    placed_slots: list[list[int]] = field(default_factory=list)
    """Parallel to placed_cards: the slot of each placed card, in placement order (B-8)."""
    flipped: bool = False
    activations: list[Activation] = field(default_factory=list)
    """Effect cards still to activate this round, the next one first."""
    result: dict[str, Any] | None = None
    reshuffles: dict[str, int] = field(default_factory=dict)
    """How many times each deck was rebuilt from its discard pile: the key of its next shuffle
    (games/engine/rng.py), the same in twin games however their streams differ."""
    decisions: list[int] = field(default_factory=list)
    """How many placements and effects each seat has made: the key of its bot's generator."""


def dump(state: State) -> dict[str, Any]:
    return copied({f.name: getattr(state, f.name) for f in fields(state)})


def load(data: dict[str, Any]) -> State:
    return State(**copied(data))
