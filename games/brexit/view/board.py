"""The Brexit table the replay viewer draws (games/brexit/templates/board.html), from observations.

The board is built from ``observe`` results only, never from the raw state, so
a view can never show more than the observations it was given: the spectator's
(``primary``) plus, for the seats whose hidden cards the view may show, each
seat's own observation (``seats``). The "all cards face up" view passes every
seat's observation; a seat view passes that seat's alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.brexit.cards import AGENDA_NAME, AGENDA_SYMBOL, COUNTRY_NAME, NAME, SYMBOLS
from games.engine.view import Obs

# Short text tags: they render in any font (a headless server browser has no emoji).
SYMBOL_ICON = {
    "viking": "VK",
    "eu": "EU",
    "americas": "AM",
    "commonwealth": "CW",
    "money": "$",
    "asia": "AS",
}


def _country(cid: str) -> dict[str, Any]:
    return {
        "id": cid,
        "name": COUNTRY_NAME.get(cid, cid),
        "symbols": [
            {"name": s, "icon": SYMBOL_ICON.get(s, s[:1].upper())}
            for s in sorted(SYMBOLS.get(cid, ()))
        ],
    }


def _card(cid: str) -> dict[str, str]:
    return {"id": cid, "name": NAME.get(cid, cid)}


def board(primary: Obs, seats: Mapping[int, Obs], labels: Sequence[str]) -> dict[str, Any]:
    n = len(primary.get("hand_sizes", []))
    pending = {p["seat"] for p in primary.get("pending", [])}
    result = primary.get("result") or {}
    slots = []
    for slot in primary.get("slots", []):
        i = slot["slot"]
        placed = []
        for k in range(n):
            cards = slot["cards"][k]
            if cards is None and k in seats:
                cards = seats[k]["slots"][i]["cards"][k]
            placed.append(
                {
                    "seat": k,
                    "label": labels[k],
                    "count": slot["counts"][k],
                    "cards": [_card(c) for c in cards] if cards is not None else None,
                }
            )
        slots.append({**_country(slot["country"]), "blocked": slot["blocked"], "placed": placed})
    players = []
    for k in range(n):
        mine = seats.get(k)
        agenda = mine.get("agenda") if mine else None
        players.append(
            {
                "seat": k,
                "label": labels[k],
                "hand_size": primary["hand_sizes"][k],
                "hand": [_card(c) for c in mine["hand"]] if mine else None,
                "agenda": {
                    "name": AGENDA_NAME.get(agenda, agenda),
                    "icon": SYMBOL_ICON.get(AGENDA_SYMBOL.get(agenda, ""), ""),
                }
                if agenda
                else None,
                "score": (result.get("scores") or [None] * n)[k]
                if result
                else (mine.get("score") if mine else None),
                "deals": [_country(c) for c in primary["deals"][k]],
                "starting": primary.get("start_seat") == k,
                "pending": k in pending,
            }
        )
    decks = primary.get("deck_sizes", {})
    return {
        "round": primary.get("round"),
        "phase": primary.get("phase"),
        "slots": slots,
        "players": players,
        "decks": decks,
        "known_top": [_country(c) for c in primary.get("known_top", [])],
        "country_discard": [_country(c) for c in primary.get("country_discard", [])],
        "negotiation_discard": [_card(c) for c in primary.get("negotiation_discard", [])],
        "removed": [_card(c) for c in primary.get("removed", [])],
        "effect": primary.get("effect"),
        "over": bool(result),
    }
