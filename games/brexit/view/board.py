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

from games.brexit.cards import SYMBOL_ABBR
from games.brexit.view.cards import agenda, card, country, symbol
from games.engine.view import Obs


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
                    "cards": [card(c) for c in cards] if cards is not None else None,
                }
            )
        slots.append({**country(slot["country"]), "blocked": slot["blocked"], "placed": placed})
    players = []
    for k in range(n):
        mine = seats.get(k)
        secret = mine.get("agenda") if mine else None
        players.append(
            {
                "seat": k,
                "label": labels[k],
                "hand_size": primary["hand_sizes"][k],
                "hand": [card(c) for c in mine["hand"]] if mine else None,
                "agenda": agenda(secret) if secret else None,
                "score": (result.get("scores") or [None] * n)[k]
                if result
                else (mine.get("score") if mine else None),
                "deals": [country(c) for c in primary["deals"][k]],
                "starting": primary.get("start_seat") == k,
                "pending": k in pending,
            }
        )
    decks = primary.get("deck_sizes", {})
    return {
        "round": primary.get("round"),
        "max_rounds": primary.get("max_rounds"),
        "phase": primary.get("phase"),
        "slots": slots,
        "players": players,
        "decks": decks,
        "known_top": [country(c) for c in primary.get("known_top", [])],
        "country_discard": [country(c) for c in primary.get("country_discard", [])],
        "negotiation_discard": [card(c) for c in primary.get("negotiation_discard", [])],
        "removed": [card(c) for c in primary.get("removed", [])],
        "effect": _effect(primary, labels),
        "over": bool(result),
        "symbols": [symbol(s) for s in SYMBOL_ABBR],
    }


def _effect(primary: Obs, labels: Sequence[str]) -> dict[str, Any] | None:
    """The effect card activating now: whose, which, beside which country."""
    effect = primary.get("effect")
    if not effect:
        return None
    slots = {s["slot"]: s["country"] for s in primary.get("slots", [])}
    where = slots.get(effect.get("slot"))
    seat = effect.get("seat")
    return {
        "label": labels[seat] if isinstance(seat, int) and 0 <= seat < len(labels) else "",
        "card": card(effect["card"]),
        "country": country(where)["name"] if where else "",
    }
