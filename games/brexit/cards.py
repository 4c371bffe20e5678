"""The card data of ``cards.json``, loaded once into flat lookup tables.

The tables are plain dicts keyed by card id because fold and scoring look a
card up on every event; the data file stays the single place to correct it.
Card names are cosmetic (B-26): the rules never read them; the replay viewer's sentences do.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

_DATA: Final[dict[str, Any]] = json.loads(
    (Path(__file__).with_name("cards.json")).read_text(encoding="utf-8")
)

BLOCK: Final = "block"
TAKE: Final = "take"
SWITCH_TWO: Final = "switch_two"
SWITCH_YOUR: Final = "switch_your"
SWITCH_ANOTHER: Final = "switch_another"
NEGOTIATING: Final = "negotiating"
COUNTRY_SPECIFIC: Final = "country_specific"

COUNTRIES: Final[list[str]] = [c["id"] for c in _DATA["countries"]]
COUNTRY_NAME: Final[dict[str, str]] = {c["id"]: c["name"] for c in _DATA["countries"]}
SYMBOLS: Final[dict[str, frozenset[str]]] = {
    c["id"]: frozenset(c["symbols"]) for c in _DATA["countries"]
}

SYMBOL_ABBR: Final[dict[str, str]] = {s["id"]: s["abbr"] for s in _DATA["symbols"]}
"""A symbol as the board prints it: a short text tag that renders in any font (no emoji)."""
SYMBOL_NAME: Final[dict[str, str]] = {s["id"]: s["name"] for s in _DATA["symbols"]}
SYMBOL_TEXT: Final[dict[str, str]] = {s["id"]: s["text"] for s in _DATA["symbols"]}
"""Which countries carry the symbol, in words (a person's key; the rules never read it)."""

AGENDAS: Final[list[str]] = [a["id"] for a in _DATA["agendas"]]
AGENDA_SYMBOL: Final[dict[str, str]] = {a["id"]: a["symbol"] for a in _DATA["agendas"]}
AGENDA_NAME: Final[dict[str, str]] = {a["id"]: a["name"] for a in _DATA["agendas"]}

NATIONS: Final[list[str]] = [n["id"] for n in _DATA["nations"]]
"""B-22: nations go to seats in this order (England, Scotland, Wales, Northern Ireland, Cornwall)."""
NATION_NAME: Final[dict[str, str]] = {n["id"]: n["name"] for n in _DATA["nations"]}
STARTING_CARDS: Final[dict[str, list[str]]] = {
    n["id"]: [n["block"], *(c[0] for c in n["cards"])] for n in _DATA["nations"]
}
"""Each nation's starting hand before the two drawn cards: its Block, then its 3 own cards."""

KIND: dict[str, str] = {}
VALUE: dict[str, int] = {}
NAME: dict[str, str] = {}
KIND_TEXT: dict[str, str] = {
    COUNTRY_SPECIFIC: _DATA["country_specific_text"],
    NEGOTIATING: _DATA["negotiating"]["text"],
    **{e["kind"]: e["text"] for e in _DATA["effects"]},
}
"""What a card of each kind does, in words (a person's view; the rules never read it)."""

for _nation in _DATA["nations"]:
    for _card_id, _card_name in _nation["cards"]:
        KIND[_card_id] = COUNTRY_SPECIFIC
        VALUE[_card_id] = _DATA["country_specific_value"]
        NAME[_card_id] = _card_name
for _effect in _DATA["effects"]:
    for _n in range(1, _effect["count"] + 1):
        _card_id = f"{_effect['prefix']}{_n}"
        KIND[_card_id] = _effect["kind"]
        VALUE[_card_id] = _effect["value"]
        NAME[_card_id] = _effect["name"]
_neg = _DATA["negotiating"]
for _i, _name in enumerate(n for n in _neg["names"] for _ in range(_neg["copies"])):
    _card_id = f"{_neg['prefix']}{_i + 1:02d}"
    KIND[_card_id] = NEGOTIATING
    VALUE[_card_id] = _neg["value"]
    NAME[_card_id] = _name

NEGOTIATION_CARDS: Final[list[str]] = list(KIND)
"""Every negotiation-type card (15 country-specific + 30 effect + 39 negotiating), B-1/B-3."""
DECK_CARDS: Final[list[str]] = [c for c in NEGOTIATION_CARDS if KIND[c] != COUNTRY_SPECIFIC]
"""B-4: what can ever be in the negotiation deck (country-specific cards never are)."""
COUNTRY_SPECIFIC_CARDS: Final[list[str]] = [
    c for c in NEGOTIATION_CARDS if KIND[c] == COUNTRY_SPECIFIC
]
ACTIVATING: Final[frozenset[str]] = frozenset(
    c for c in NEGOTIATION_CARDS if KIND[c] not in (NEGOTIATING, COUNTRY_SPECIFIC)
)
"""Cards that activate after the flip (B-7, B-8): the Blocks and the optional effects."""
