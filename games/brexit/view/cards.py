"""Brexit's cards, countries, symbols and agendas as a person reads them, from cards.json.

Every name, value and line of text comes from the card data (games/brexit/cards.json):
the board, a person's controls and the Rules panel's key all read them here, so no
template or sentence holds a card's words of its own.
"""

from __future__ import annotations

from typing import Any

from games.brexit.cards import (
    AGENDA_NAME,
    AGENDA_SYMBOL,
    COUNTRY_NAME,
    COUNTRY_SPECIFIC,
    KIND,
    KIND_TEXT,
    NAME,
    NEGOTIATING,
    SYMBOL_ABBR,
    SYMBOL_NAME,
    SYMBOL_TEXT,
    SYMBOLS,
    VALUE,
)
from games.engine.view import Card, Glossary

KIND_NAME = {COUNTRY_SPECIFIC: "Your nation's card", NEGOTIATING: "Negotiating card"}
"""The kinds whose cards have names of their own (each nation's, each negotiation's)."""


def card(cid: str) -> Card:
    """A negotiation card: its name, value (0-3) and what it does."""
    kind = KIND.get(cid, "")
    return {
        "id": cid,
        "kind": kind,
        "name": NAME.get(cid, cid),
        "value": VALUE.get(cid),
        "text": KIND_TEXT.get(kind, ""),
    }


def symbol(sid: str) -> dict[str, str]:
    return {
        "id": sid,
        "abbr": SYMBOL_ABBR.get(sid, sid[:2].upper()),
        "name": SYMBOL_NAME.get(sid, sid),
        "text": SYMBOL_TEXT.get(sid, ""),
    }


def country(cid: str) -> dict[str, Any]:
    """A country (a trade deal once won), with its symbols."""
    symbols = [symbol(s) for s in sorted(SYMBOLS.get(cid, ()))]
    return {
        "id": cid,
        "name": COUNTRY_NAME.get(cid, cid),
        "symbols": symbols,
        "symbol_names": ", ".join(s["name"] for s in symbols),
    }


def agenda(aid: str) -> dict[str, Any]:
    """A secret agenda: the symbol it rewards and how."""
    sym = symbol(AGENDA_SYMBOL.get(aid, ""))
    return {
        "id": aid,
        "name": AGENDA_NAME.get(aid, aid),
        "symbol": sym,
        "text": agenda_text(sym["name"]),
    }


def agenda_text(symbol_name: str) -> str:
    # B-19: a matching deal scores 2 whatever its other symbols, any other deal 1.
    return f"Secret agenda: each trade deal with the {symbol_name} symbol scores 2, any other 1."


def glossary() -> Glossary:
    """The key of the Rules panel: symbols, agendas and the kinds of negotiation card."""
    one_of_each: dict[str, str] = {}
    for cid, kind in KIND.items():
        one_of_each.setdefault(kind, cid)
    kinds = []
    for kind, cid in one_of_each.items():
        c = card(cid)
        name = KIND_NAME.get(kind, c["name"])
        kinds.append(
            {"id": f"brexit-{kind}", "abbr": str(c["value"]), "name": name, "text": c["text"]}
        )
    return [
        {
            "title": "Symbols",
            "entries": [{**symbol(s), "id": f"brexit-sym-{s}"} for s in SYMBOL_ABBR],
        },
        {
            "title": "Secret agendas",
            "entries": [
                {
                    # By symbol, not by the agenda's id: an id on every page would show a
                    # seat's hidden agenda to a search for it (tests/viewer/test_visibility.py).
                    "id": f"brexit-agenda-{ag['symbol']['id']}",
                    "abbr": ag["symbol"]["abbr"],
                    "name": ag["name"],
                    "text": ag["text"],
                }
                for ag in map(agenda, AGENDA_NAME)
            ],
        },
        {"title": "Negotiation cards (value, effect)", "entries": kinds},
    ]
