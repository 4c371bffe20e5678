"""The card and board data of Bra$ilis, read once from ``data/cards.json``.

Card data is data (STYLE.md): correcting an [INV] value means editing the JSON,
never this module. Identifiers are stable strings that appear in events.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_DATA: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "cards.json").read_text("utf-8")
)

INFLUENCE_KINDS = ("1", "2", "3", "4", "5")


def _power_cards() -> dict[str, str]:
    kinds: dict[str, str] = {}
    number = 0
    for row in _DATA["power"]:
        for _ in range(row["count"]):
            number += 1
            kinds[f"P_{number:02d}"] = row["kind"]
    return kinds


POWER_KIND: dict[str, str] = _power_cards()
"""Power card id -> kind: "1".."5", "x0", "x2", "eliminate", "reposition"."""
POWER_IDS: list[str] = list(POWER_KIND)
POWER_NAME: dict[str, str] = {row["kind"]: row["name"] for row in _DATA["power"]}
"""Power card kind -> the name a person reads ("4", "x2", "Eliminate")."""
POWER_VALUE: dict[str, int] = {row["kind"]: row["value"] for row in _DATA["power"]}
"""Power card kind -> its printed value (0 for the cards that act on another card)."""
POWER_TEXT: dict[str, str] = {row["kind"]: row["text"] for row in _DATA["power"]}
"""Power card kind -> what it does, in words (a person's view; the rules never read it)."""
INFLUENCE_VALUE: dict[str, int] = {
    card: int(kind) for card, kind in POWER_KIND.items() if kind in INFLUENCE_KINDS
}
"""Influence cards only: id -> printed value. Membership means 'is an influence card'."""
KIND_ORDER: dict[str, int] = {row["kind"]: i for i, row in enumerate(_DATA["power"])}


@dataclass(frozen=True)
class News:
    id: str
    headline: str
    image: int
    money: int
    votes: int
    green: bool
    """Green vote background (votes >= 0): what a revolution can take (S-26)."""
    black: bool
    """Black background: influence cards are played face down (S-28)."""
    revolution: bool

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "headline": self.headline,
            "image": self.image,
            "money": self.money,
            "votes": self.votes,
            "black": self.black,
            "revolution": self.revolution,
        }


NEWS: dict[str, News] = {
    row["id"]: News(
        id=row["id"],
        headline=row["headline"],
        image=row["image"],
        money=row["money"],
        votes=row["votes"],
        green=row["background"] == "green",
        black=row["black"],
        revolution=bool(row.get("revolution", False)),
    )
    for row in _DATA["news"]
}
NEWS_IDS: list[str] = list(NEWS)

EXTRA_VOTE_IDS: list[str] = [f"EV{i}" for i in range(1, _DATA["extra_votes"]["count"] + 1)]
EXTRA_VOTE_VALUE: int = _DATA["extra_votes"]["votes"]

AIDS: list[str] = [row["id"] for row in _DATA["aids"]]
AID_COST: dict[str, int] = {row["id"]: row.get("cost", 0) for row in _DATA["aids"]}
AID_NAME: dict[str, str] = {row["id"]: row["name"] for row in _DATA["aids"]}
AID_TEXT: dict[str, str] = {row["id"]: row["text"] for row in _DATA["aids"]}
"""The aid card's own words (flavour)."""
AID_RULE: dict[str, str] = {row["id"]: row["rule"] for row in _DATA["aids"]}
"""What the aid does, as the rules implement it (S-15..S-19)."""

TOTAL_MONEY: int = _DATA["money"]["total"]
MONEY_UNIT: int = _DATA["money"]["unit"]
SALARY: int = _DATA["money"]["salary"]
MIN_BID: int = _DATA["money"]["min_bid"]
IMAGE_MAX: int = _DATA["image"]["max"]
FURY_MAX: int = _DATA["fury"]["max"]
PIZZA_SLICES: int = _DATA["pizza"]["slices"]
INITIAL_SLICES: dict[int, int] = {int(k): v for k, v in _DATA["pizza"]["initial"].items()}
HAND_SIZE: dict[int, int] = {int(k): v for k, v in _DATA["hand_size"].items()}
REFILL_AT_MOST: dict[str, dict[int, int]] = {
    name: {int(k): v for k, v in table.items()}
    for name, table in _DATA["refill_when_holders_at_most"].items()
}


def is_news(card: str) -> bool:
    """News and Extra Votes share a politician's secret pile; this tells them apart."""
    return card in NEWS


def pile_votes(card: str) -> int:
    return NEWS[card].votes if card in NEWS else EXTRA_VOTE_VALUE


def is_green(card: str) -> bool:
    return NEWS[card].green if card in NEWS else True
