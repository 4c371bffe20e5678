"""The state of one Bra$ilis match: plain lists and dicts, compared by value.

Everything here is JSON-shaped so that ``dump``/``load`` are trivial and a
stored event stream folds to an equal state. Decks list their top card first.
A stack entry is a dict (see :func:`entry`), because entries move between
stacks and into JSON unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from games.brasilis.cards import AIDS, INFLUENCE_VALUE, POWER_KIND
from games.engine.plain import copied

Entry = dict[str, Any]
"""A card lying in a politician's stack (S-12): card id (None for a Palanque copy),
printed value, attached multipliers, locked (Palanque, S-15), face down (S-28),
who put it there, and who knows its value while it is face down (the player of
the card; for a Palanque copy, the player of the original: S-36)."""


def entry(
    card: str | None,
    value: int,
    by: int,
    *,
    down: bool = False,
    locked: bool = False,
    known_by: int | None = None,
) -> Entry:
    return {
        "card": card,
        "value": value,
        "mult": [],
        "locked": locked,
        "down": down,
        "by": by,
        "known_by": by if known_by is None else known_by,
    }


def effective(e: Entry) -> int:
    """An entry's value after multipliers (S-13): any x0 gives 0, each x2 doubles."""
    value: int = e["value"]
    for m in e["mult"]:
        value = 0 if POWER_KIND[m] == "x0" else value * 2
    return value


def is_physical_influence(e: Entry) -> bool:
    return e["card"] is not None and e["card"] in INFLUENCE_VALUE


@dataclass
class State:
    n: int = 0
    options: dict[str, Any] = field(default_factory=dict)
    rounds: int = 0
    salary: int = 0
    hand_size: int = 0
    image_max: int = 5
    fury_max: int = 10
    engine_version: str = ""

    # Whose decision: a kind and the seats that still owe it.
    phase: str = "setup"
    waiting: list[int] = field(default_factory=list)
    traded: bool = False

    round: int = 0
    chief: int = 0
    wallet_rank: list[int] = field(default_factory=list)
    revealer: int = 0
    reveals_done: int = 0

    image: list[int] = field(default_factory=list)
    money: list[int] = field(default_factory=list)
    bank: int = 0
    fury: int = 0

    power_deck: list[str] = field(default_factory=list)
    power_discard: list[str] = field(default_factory=list)
    hands: list[list[str]] = field(default_factory=list)
    stacks: list[list[Entry]] = field(default_factory=list)
    spent: list[str] = field(default_factory=list)
    """Eliminate/Reposition cards played on the current news (discarded with the stacks)."""
    discarded_down: dict[str, int] = field(default_factory=dict)
    """Face-down cards eliminated on the current news: id -> the only seat that knows it,
    until the reveal (S-36)."""

    news_deck: list[str] = field(default_factory=list)
    pool: list[str] = field(default_factory=list)
    offered: list[str] = field(default_factory=list)
    news: str | None = None
    piles: list[list[str]] = field(default_factory=list)
    news_discard: list[str] = field(default_factory=list)
    """News cancelled by the Lawyer (S-18): public."""
    removed: list[str] = field(default_factory=list)
    """Out of the game: revolution losses, the REVOLUTION card, Media Control leftovers."""
    extra_votes: list[str] = field(default_factory=list)

    passed: list[bool] = field(default_factory=list)
    played: list[bool] = field(default_factory=list)
    tied: list[int] = field(default_factory=list)
    attributed: int | None = None

    aid_owner: dict[str, int | None] = field(default_factory=dict)
    aid_used: dict[str, bool] = field(default_factory=dict)
    shown_aids: list[str] = field(default_factory=list)
    eligible: list[bool] = field(default_factory=list)
    auction_aid: str | None = None
    bids: list[int | None] = field(default_factory=list)

    trade: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    drawn: dict[str, int] = field(default_factory=dict)
    """How many times each counted draw was made ("power": the deck rebuilt from its discard,
    "revolution": revolutions): the key of the next one (games/engine/rng.py), the same in
    twin games however their streams differ."""
    asked: list[int] = field(default_factory=list)
    """How many decisions each seat was asked for (``awaiting`` events naming it): the key
    of its bot's generator."""


_FIELDS = [f.name for f in fields(State)]


def dump(state: State) -> dict[str, Any]:
    return copied({name: getattr(state, name) for name in _FIELDS})


def load(data: dict[str, Any]) -> State:
    state = State(**copied({name: data[name] for name in _FIELDS}))
    # A snapshot stored as jsonb comes back with its keys re-ordered; observations list
    # aids in key order, so restore the order setup gave them (a bot sees the same list).
    state.aid_owner = {a: state.aid_owner[a] for a in AIDS if a in state.aid_owner}
    state.aid_used = {a: state.aid_used[a] for a in AIDS if a in state.aid_used}
    return state
