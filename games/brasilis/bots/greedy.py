"""A one-step heuristic Bra$ilis politician that reads only its observation and legal actions.

In a dispute it scores each legal action by the influence totals it leaves
(who would keep the news if everyone passed now) against the cards it
spends: it fights for good news and pushes scandals onto rivals. Bids go to
the Marketeer (a vote) and little else; the Lawyer cancels any scandal that
costs votes. The same :func:`choose` could run as an uploaded bot.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from games.brasilis.cards import AID_COST, MONEY_UNIT, NEWS
from games.brasilis.rules import RULES
from games.brasilis.state import State
from games.engine.types import Action, Legal

IMAGE_WEIGHT = 0.25
"""Votes one image step is worth: it wins tie-breaks and shields from revolutions."""
MONEY_WEIGHT = 0.0005
"""Votes one dollar is worth: money only breaks ties and pays for the Lawyer and Colonel."""
HIDDEN_GUESS = 3
"""The value assumed for a rival's face-down influence card (the mean of 1..5)."""
CARD_COST = 0.08
"""Votes given up per influence point spent: the hand refills only when nearly everyone is out."""
SPECIAL_COST = 0.3
"""Votes given up for spending a multiplier or interference card."""
AID_BID = {"marketeer": 400, "advertiser": 100, "lawyer": 100, "palanque": 0, "colonel": 0}
"""What the greedy politician is willing to sink into each sealed all-pay bid."""


@dataclass(frozen=True)
class Style:
    """The weights of the one-step rule; the other built-ins (cautious, bold) change them."""

    card_cost: float = CARD_COST
    special_cost: float = SPECIAL_COST
    scandal_weight: float = 1.0
    """How much worse a scandal counts than its face value (a cautious politician fears them)."""
    bids: Mapping[str, int] = field(default_factory=lambda: dict(AID_BID))
    lawyer_below: float = -MONEY_WEIGHT * AID_COST["lawyer"]
    """The Lawyer cancels news worth less than this (by default: less than its $300)."""


GREEDY = Style()


def news_value(news: dict[str, Any] | None) -> float:
    """What keeping ``news`` is worth to its holder, in votes."""
    if news is None or news.get("revolution"):
        return 0.0
    return float(news["votes"] + IMAGE_WEIGHT * news["image"] + MONEY_WEIGHT * news["money"])


def _value(entry: dict[str, Any]) -> int:
    return HIDDEN_GUESS if entry["value"] is None else int(entry["value"])


def totals(obs: dict[str, Any]) -> list[int]:
    """Influence per politician, guessing face-down values this seat cannot see."""
    return [sum(_value(e) for e in stack) for stack in obs["stacks"]]


def keeper_share(obs: dict[str, Any], influence: list[int], me: int, good: bool) -> float:
    """This seat's chance of keeping the news if the dispute ended with ``influence``."""
    top = max(influence)
    tied = [s for s, v in enumerate(influence) if v == top]
    if me not in tied:
        return 0.0
    if len(tied) == 1:
        return 1.0
    # S-34: the tie-break's favourite chooses where it goes.
    order = obs["tie_break_order"]
    chooser = min(tied, key=order.index)
    if chooser == me:
        return 1.0 if good else 0.0
    return 0.0 if good else 1.0 / (len(tied) - 1)


def after(obs: dict[str, Any], action: Action, me: int) -> list[int]:
    """The influence totals after ``action`` (a dispute action), as far as this seat can tell."""
    influence = list(obs["_totals"])
    if "play" in action:
        card = action["play"]
        target = action["target"]
        kind = _kind(obs, card)
        stack = obs["stacks"][target]
        top = _value(stack[-1]) if stack else 0
        if kind in ("1", "2", "3", "4", "5"):
            influence[target] += int(kind)
        elif kind == "x2":
            influence[target] += top
        elif kind in ("x0", "eliminate"):
            influence[target] -= top
        elif kind == "reposition":
            influence[target] -= top
            influence[action["destination"]] += top
    elif action.get("aid") == "palanque":
        stack = obs["stacks"][action["neighbour"]]
        influence[me] += _value(stack[-1]) if stack else 0
    return influence


def _kind(obs: dict[str, Any], card: str) -> str:
    kinds: dict[str, str] = obs["_kinds"]
    return kinds[card]


def with_kinds(obs: dict[str, Any]) -> dict[str, Any]:
    """Index the hand's kinds by card id (the observation gives each card with its kind), and
    count the totals every action's score starts from once, not once per action."""
    obs["_kinds"] = {c["id"]: c["kind"] for c in obs["hand"] or []}
    obs["_totals"] = totals(obs)
    return obs


def cost(obs: dict[str, Any], action: Action, style: Style = GREEDY) -> float:
    if "play" in action:
        kind = _kind(obs, action["play"])
        return style.card_cost * int(kind) if kind.isdigit() else style.special_cost
    if action.get("aid") == "colonel":
        return MONEY_WEIGHT * AID_COST["colonel"]
    return 0.0


def dispute_score(obs: dict[str, Any], action: Action, style: Style = GREEDY) -> float:
    me: int = obs["seat"]
    value = news_value(obs["news"])
    if action.get("aid") == "colonel":
        # A card in hand is worth a little when the hand is nearly empty.
        return 0.3 - cost(obs, action, style) if len(obs["hand"] or []) <= 1 else -1.0
    influence = after(obs, action, me)
    weighted = value * style.scandal_weight if value < 0 else value
    return weighted * keeper_share(obs, influence, me, value > 0) - cost(obs, action, style)


def choose_dispute(obs: dict[str, Any], actions: list[Action], style: Style = GREEDY) -> Action:
    best, best_score = actions[0], -1e9
    for action in actions:
        score = dispute_score(obs, action, style)
        if score > best_score + 1e-9:
            best, best_score = action, score
    return best


def choose(obs: dict[str, Any], legal: Legal, style: Style = GREEDY) -> Action:
    """The greedy action (or that of another ``style``) from what one seat may see."""
    kind = legal["kind"]
    me: int = obs["seat"]
    actions = legal["actions"] or []
    if kind == "dispute":
        return choose_dispute(with_kinds(obs), actions, style)
    if kind == "bid":
        lot = obs["auction"]["lot"] if obs["auction"] else None
        want = style.bids.get(lot or "", 0)
        money: int = obs["money"][me]
        return {"bid": min(money, want) // MONEY_UNIT * MONEY_UNIT}
    if kind == "auction_choice":
        return max(actions, key=lambda a: style.bids.get(a["choose_aid"], 0))
    if kind == "destination":
        good = news_value(obs["news"]) > 0
        mine = [a for a in actions if a["give_to"] == me]
        others = [a for a in actions if a["give_to"] != me]
        if good and mine:
            return mine[0]
        if others:
            # Hand a scandal to the rival whose image is best: it hurts the front-runner most.
            return max(others, key=lambda a: obs["image"][a["give_to"]])
        return actions[0]
    if kind == "lawyer":
        return {"lawyer": news_value(obs["news"]) < style.lawyer_below}
    if kind == "media_pick":
        return max(actions, key=lambda a: news_value(NEWS[a["reveal"]].public()))
    if kind == "trade_reply":
        return {"accept": False}
    return actions[0]


def act(state: State, seat: int, rng: random.Random) -> Action:
    """In-process entry point: only this seat's observation and legal actions are used."""
    return choose(RULES.observe(state, seat), RULES.legal(state, seat))
