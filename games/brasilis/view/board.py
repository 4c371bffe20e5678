"""The Bra$ilis table the replay viewer draws (games/brasilis/templates/board.html), from observations.

Built from ``observe`` results only, never from the raw state: the spectator's
(``primary``) plus the observations of the seats whose hidden cards the view may
show (``seats``), so a face-down card shows only to a view that may see it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.brasilis.cards import POWER_KIND
from games.brasilis.view.cards import aid, news, power
from games.engine.view import Obs


def _entry(shown: Mapping[str, Any], labels: Sequence[str]) -> dict[str, Any]:
    """A stack entry: the card played, what it counts now, who played it."""
    by = labels[shown["played_by"]]
    out = {
        "card": shown["card"],
        "value": shown["value"],
        "hidden": shown["kind"] == "hidden",
        "face_down": shown["face_down"],
        "multipliers": shown["multipliers"],
        "locked": shown["locked"],
        "by": by,
    }
    if out["hidden"]:
        title = f"A face-down card played by {by}: its value shows when everyone has passed."
        return {**out, "label": "?", "title": title}
    copy = shown["kind"] == "palanque_copy"
    name = power(POWER_KIND.get(shown["card"] or "", "") if copy else shown["kind"])["name"]
    title = f"{'A Palanque copy of a' if copy else 'A'} {name} played by {by}, counting {shown['value']}"
    if shown["multipliers"]:
        title += f" ({', '.join(shown['multipliers'])} on it)"
    if shown["locked"]:
        title += "; locked by a Palanque"
    return {**out, "label": f"copy {name}" if copy else name, "title": title + "."}


def board(primary: Obs, seats: Mapping[int, Obs], labels: Sequence[str]) -> dict[str, Any]:
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
            stack.append(_entry(shown, labels))
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
                "hand": [power(c["kind"], c["id"]) for c in mine.get("hand") or []]
                if mine
                else None,
                "my_news": [news(c) for c in mine.get("my_news") or []] if mine else None,
                "offered": [news(c) for c in mine.get("offered") or []] if mine else [],
                "aids": [
                    aid(a) for a, owner in sorted(primary.get("aids", {}).items()) if owner == k
                ],
                "stack": stack,
                "influence": (primary.get("influence") or [None] * n)[k],
                "passed": bool((primary.get("passed") or [False] * n)[k]),  # one flag per seat
                "pending": k in pending,
                "chief": primary.get("chief") == k,
                "revealer": primary.get("revealer") == k,
            }
        )
    shown = primary.get("news")
    auction = primary.get("auction")
    return {
        "round": primary.get("round"),
        "rounds": primary.get("rounds"),
        "phase": primary.get("phase"),
        "news": news(shown["id"]) if shown else None,
        "politicians": politicians,
        "image_max": image_max,
        "image_scale": list(range(image_max, -image_max - 1, -1)),
        "fury": primary.get("fury", 0),
        "fury_max": fury_max,
        "fury_steps": list(range(fury_max + 1)),
        "pizza": primary.get("pool_size", 0),
        "bank": primary.get("bank"),
        "auction": {
            "lot": aid(auction["lot"]) if auction.get("lot") else None,
            "shown": [aid(a) for a in auction.get("shown") or []],
            "bids_in": len(auction.get("bids_in") or []),
            "eligible": len(auction.get("eligible") or []),
        }
        if auction
        else None,
        "decks": {
            "power": primary.get("power_deck_size"),
            "power_discard": primary.get("power_discard_size"),
            "news": primary.get("news_deck_size"),
        },
        "over": primary.get("result") is not None,
    }
