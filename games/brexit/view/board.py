"""What the replay viewer draws: a game's table built from observations.

The board is built from ``observe`` results only, never from the raw state, so
a view can never show more than the observations it was given: the spectator's
(``primary``) plus, for the seats whose hidden cards the view may show, each
seat's own observation (``seats``). The "all cards face up" view passes every
seat's observation; a seat view passes that seat's alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.brasilis.cards import NEWS
from games.brexit.cards import AGENDA_NAME, AGENDA_SYMBOL, COUNTRY_NAME, NAME, SYMBOLS

Obs = Mapping[str, Any]

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


def brexit(primary: Obs, seats: Mapping[int, Obs], labels: Sequence[str]) -> dict[str, Any]:
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


def _power(card: str | None, kind: str) -> str:
    if kind == "hidden":
        return "?"
    if kind == "palanque_copy":
        return "copy"
    return kind


def brasilis(primary: Obs, seats: Mapping[int, Obs], labels: Sequence[str]) -> dict[str, Any]:
    n = len(primary.get("hand_sizes", []))
    image_max = primary.get("options", {}).get("image_max", 5)
    fury_max = primary.get("options", {}).get("fury_max", 10)
    pending = {p["seat"] for p in primary.get("pending", [])}
    politicians = []
    for k in range(n):
        mine = seats.get(k)
        stack = []
        for j, entry in enumerate(primary["stacks"][k]):
            shown = entry
            if entry["kind"] == "hidden" and entry["played_by"] in seats:
                shown = seats[entry["played_by"]]["stacks"][k][j]
            stack.append(
                {
                    "card": shown["card"],
                    "label": _power(shown["card"], shown["kind"]),
                    "value": shown["value"],
                    "hidden": shown["kind"] == "hidden",
                    "face_down": shown["face_down"],
                    "multipliers": shown["multipliers"],
                    "locked": shown["locked"],
                    "by": labels[shown["played_by"]],
                }
            )
        image = primary["image"][k]
        politicians.append(
            {
                "seat": k,
                "label": labels[k],
                "image": image,
                "image_pct": round(50 + 50 * image / max(image_max, 1)),
                "money": primary["money"][k],
                "hand_size": primary["hand_sizes"][k],
                "news_count": primary["news_counts"][k],
                # The observation gives each card in hand with its kind ({"id", "kind"}).
                "hand": list((mine or {}).get("hand") or []) if mine else None,
                "my_news": [_news(c) for c in mine.get("my_news") or []] if mine else None,
                "aids": sorted(a for a, owner in primary.get("aids", {}).items() if owner == k),
                "stack": stack,
                "influence": (primary.get("influence") or [None] * n)[k],
                "passed": bool((primary.get("passed") or [False] * n)[k]),  # one flag per seat
                "pending": k in pending,
                "chief": primary.get("chief") == k,
                "revealer": primary.get("revealer") == k,
            }
        )
    news = primary.get("news")
    return {
        "round": primary.get("round"),
        "rounds": primary.get("rounds"),
        "phase": primary.get("phase"),
        "news": news,
        "politicians": politicians,
        "image_max": image_max,
        "image_scale": list(range(image_max, -image_max - 1, -1)),
        "fury": primary.get("fury", 0),
        "fury_max": fury_max,
        "fury_steps": list(range(fury_max + 1)),
        "pizza": primary.get("pool_size", 0),
        "bank": primary.get("bank"),
        "auction": primary.get("auction"),
        "decks": {
            "power": primary.get("power_deck_size"),
            "power_discard": primary.get("power_discard_size"),
            "news": primary.get("news_deck_size"),
        },
        "over": primary.get("result") is not None,
    }


def _news(cid: str) -> dict[str, Any]:
    card = NEWS.get(cid)
    if card is None:
        return {"id": cid, "headline": cid, "votes": None}
    return {"id": cid, "headline": card.headline, "votes": card.votes}


BOARDS = {"brexit": brexit, "brasilis": brasilis}


def board(
    game: str, primary: Obs, seats: Mapping[int, Obs], labels: Sequence[str]
) -> dict[str, Any]:
    """The table of ``game`` as a template context."""
    return BOARDS[game](primary, seats, labels)
