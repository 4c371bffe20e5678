"""Bra$ilis' cards and aids as a person reads them, from data/cards.json.

Power cards by their printed face ("4", "x2", "Eliminate") with what they do; News
cards by headline with their effect in words (image, money, votes, a black background,
a revolution); the aids by name with their rule. The board, a person's controls and the
Rules panel's key all read them here, so no template or sentence holds a card's words.
"""

from __future__ import annotations

from typing import Any

from games.brasilis.cards import (
    AID_NAME,
    AID_RULE,
    AID_TEXT,
    EXTRA_VOTE_VALUE,
    INFLUENCE_KINDS,
    NEWS,
    POWER_KIND,
    POWER_NAME,
    POWER_TEXT,
    POWER_VALUE,
)
from games.engine.view import Card, Glossary


def power(kind: str, cid: str | None = None) -> Card:
    """A Power card of ``kind`` ("1".."5", "x0", "x2", "eliminate", "reposition")."""
    return {
        "id": cid,
        "kind": kind,
        "name": POWER_NAME.get(kind, kind),
        "value": POWER_VALUE.get(kind),
        "text": POWER_TEXT.get(kind, ""),
        "influence": kind in INFLUENCE_KINDS,
    }


def power_card(cid: str) -> Card:
    return power(POWER_KIND.get(cid, ""), cid)


MINUS = "\u2212"
"""A true minus sign, as the cards print a loss (a hyphen reads as a dash)."""


def signed(n: int) -> str:
    """A change as a card prints it: +2, 0, or minus 3 with a true minus sign."""
    return f"+{n}" if n > 0 else f"{MINUS}{-n}" if n < 0 else "0"


def money(n: int) -> str:
    return f"+${n}" if n > 0 else f"{MINUS}${-n}" if n < 0 else "$0"


def news_effect(card: Any) -> str:
    """What a news does to the politician who gets it, in words."""
    parts = [f"image {signed(card.image)}", f"money {money(card.money)}"]
    parts.append(f"{signed(card.votes)} vote{'' if abs(card.votes) == 1 else 's'}")
    text = ", ".join(parts)
    if card.black:
        text += "; black background: influence cards are played face down on it"
    if card.revolution:
        text += "; REVOLUTION: a revolution breaks out at once and another news is revealed"
    return text


def news(cid: str) -> Card:
    """A News card (or an Extra Vote, which shares a politician's secret pile)."""
    card = NEWS.get(cid)
    if card is None:
        return {
            "id": cid,
            "kind": "extra_vote",
            "name": "Extra Vote",
            "value": signed(EXTRA_VOTE_VALUE),
            "text": f"{signed(EXTRA_VOTE_VALUE)} vote at the final count (from the Marketeer).",
        }
    return {
        "id": cid,
        "kind": "news",
        "name": card.headline,
        "value": signed(card.votes),
        "text": news_effect(card),
        "image": card.image,
        "money": card.money,
        "votes": card.votes,
        "black": card.black,
        "revolution": card.revolution,
    }


def aid(name: str) -> Card:
    """A Political Aid by its id ("lawyer"): its name and rule (its card's words too)."""
    return {
        "id": name,
        "kind": "aid",
        "name": AID_NAME.get(name, name),
        "value": None,
        "text": AID_RULE.get(name, ""),
        "flavour": AID_TEXT.get(name, ""),
    }


def glossary() -> Glossary:
    """The key of the Rules panel: the Power cards and the aids."""
    return [
        {
            "title": "Power cards (value, effect)",
            "entries": [
                {**power(kind), "id": f"brasilis-power-{kind}", "abbr": str(POWER_VALUE[kind])}
                for kind in POWER_NAME
            ],
        },
        {
            "title": "Political aids",
            "entries": [{**aid(a), "id": f"brasilis-aid-{a}", "abbr": ""} for a in AID_NAME],
        },
    ]
