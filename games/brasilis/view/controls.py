"""A person's controls for one Bra$ilis decision: the legal actions, told in the game's own words.

Built from what a bot is given (the seat's observation and ``legal``), never from the
state, so a person's page can show no more than a bot of that seat sees. Enumerated
actions become one button each, a sentence without ids ("Play your 4 on Politician 2",
"Move Politician 3's last card (a 2) to Politician 1"), grouped by the card or aid they
use; the sealed bid is the platform's ``bid`` widget, under the aid it is for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.brasilis.cards import AID_COST, NEWS, POWER_KIND
from games.brasilis.view.cards import aid, news, power
from games.engine.view import Card, Controls, Obs, decision_controls, plain_action


class _Table:
    """The politicians and their stacks as the person at seat ``me`` reads them."""

    def __init__(self, observation: Obs, names: Sequence[str], me: int) -> None:
        self.observation, self.names, self.me = observation, names, me

    def name(self, k: Any) -> str:
        if k == self.me:
            return "yourself"
        return self.names[k] if isinstance(k, int) and 0 <= k < len(self.names) else "a politician"

    def whose(self, k: Any) -> str:
        return "your" if k == self.me else f"{self.name(k)}'s"

    def top(self, k: Any) -> str:
        """The last card of ``k``'s stack, as "a 3", "a face-down card" or "a 2 counting 4"."""
        stacks = self.observation.get("stacks") or []
        if not isinstance(k, int) or not 0 <= k < len(stacks) or not stacks[k]:
            return "a card"
        entry = stacks[k][-1]
        if entry.get("kind") == "hidden":
            return "a face-down card"
        card = entry.get("card") or ""
        kind = POWER_KIND.get(card, "") if entry.get("kind") == "palanque_copy" else entry["kind"]
        name = power(kind)["name"]
        value = entry.get("value")
        if value is not None and str(value) != name:
            return f"a {name} counting {value}"
        return f"a {name}"

    def hand_kind(self, cid: Any) -> str:
        for entry in self.observation.get("hand") or []:
            if isinstance(entry, Mapping) and entry.get("id") == cid:
                return str(entry.get("kind"))
        return POWER_KIND.get(cid, "") if isinstance(cid, str) else ""

    def face_down(self) -> bool:
        return bool((self.observation.get("news") or {}).get("black"))


def _play(action: Mapping[str, Any], table: _Table) -> str:
    kind = table.hand_kind(action["play"])
    target = action.get("target")
    if kind == "eliminate":
        return f"Eliminate {table.whose(target)} last card ({table.top(target)})"
    if kind == "reposition":
        return (
            f"Move {table.whose(target)} last card ({table.top(target)}) to"
            f" {table.name(action.get('destination'))}"
        )
    name = power(kind)["name"]
    if kind in ("x0", "x2"):
        counts = "count 0" if kind == "x0" else "count double"
        return (
            f"Play your {name} on {table.whose(target)} last card ({table.top(target)}):"
            f" it will {counts}"
        )
    down = " face down" if table.face_down() else ""
    return f"Play your {name}{down} on {table.name(target)}"


def describe(action: Mapping[str, Any], observation: Obs, names: Sequence[str], me: int) -> str:
    """One enumerated action as a sentence a player reads."""
    table = _Table(observation, names, me)
    if "play" in action:
        return _play(action, table)
    if action.get("aid") == "colonel":
        return f"Use your Colonel: pay ${AID_COST['colonel']} and draw a Power card"
    if action.get("aid") == "palanque":
        nb = action.get("neighbour")
        return (
            f"Use your Palanque: copy {table.whose(nb)} last card ({table.top(nb)})"
            " onto your own stack"
        )
    if "give_to" in action:
        if action["give_to"] == me:
            return "Keep the news yourself"
        return f"Give the news to {table.name(action['give_to'])}"
    if "choose_aid" in action:
        lot = aid(str(action["choose_aid"]))
        return f"Auction the {lot['name']}: {lot['text']}"
    if "lawyer" in action:
        if action["lawyer"]:
            return f"Pay your Lawyer ${AID_COST['lawyer']} to cancel this news"
        return "Keep the news: do not use the Lawyer"
    if "reveal" in action:
        shown = news(str(action["reveal"]))
        return f"Reveal “{shown['name']}” ({shown['text']})"
    if "accept" in action:
        return "Accept the trade" if action["accept"] else "Decline the trade"
    if action.get("pass") is True:
        return "Pass"
    return plain_action(action, _headline)


def _headline(value: Any) -> str:
    if isinstance(value, str) and value in NEWS:
        return NEWS[value].headline
    return str(value)


def _group(action: Mapping[str, Any], observation: Obs) -> str:
    """The heading of the buttons of one card or aid."""
    if "play" in action:
        kind = _Table(observation, (), -1).hand_kind(action["play"])
        return f"Your {power(kind)['name']}"
    if "aid" in action:
        return f"Your {aid(str(action['aid']))['name']}"
    return ""


def _titles(observation: Obs, names: Sequence[str], me: int) -> dict[str, str]:
    auction = observation.get("auction") or {}
    lot = aid(auction["lot"])["name"] if auction.get("lot") else "the aid"
    headline = (observation.get("news") or {}).get("headline")
    about = f" “{headline}”" if headline else ""
    return {
        "dispute": f"Play a card or an aid on the news{about}, or pass",
        "auction_choice": "Choose which aid goes up for auction",
        "bid": f"Your sealed bid for the {lot} (you have ${_money(observation, me)})",
        "destination": f"You decide who gets the news{about}",
        "lawyer": f"The news{about} is yours: use your Lawyer?",
        "media_pick": "Choose the news you reveal",
        "trade_reply": "Answer the trade offer",
    }


def _money(observation: Obs, me: int) -> int:
    money = observation.get("money") or []
    return int(money[me]) if 0 <= me < len(money) else 0


def _about(kind: str, observation: Obs) -> list[Card]:
    """The cards the decision is about: the aid auctioned, or the news at stake."""
    auction = observation.get("auction") or {}
    if kind == "bid" and auction.get("lot"):
        return [aid(auction["lot"])]
    shown = observation.get("news") or {}
    if kind in ("dispute", "destination", "lawyer") and shown.get("id"):
        return [news(shown["id"])]
    return []


def _bid(kind: str, space: Obs) -> Controls | None:
    return {"bid": dict(space["bid"])} if "bid" in space else None


def controls(legal: Obs, observation: Obs, names: Sequence[str], me: int) -> Controls:
    """The template context of one decision's controls."""
    return decision_controls(
        legal,
        _titles(observation, names, me),
        lambda a: describe(a, observation, names, me),
        _bid,
        group=lambda a: _group(a, observation),
        about=_about(str(legal.get("kind", "")), observation),
    )
