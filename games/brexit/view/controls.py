"""A person's controls for one decision: the legal actions, told in the games' own words.

Built from what a bot is given (the seat's observation and ``legal``), never from the
state, so a person's page can show no more than a bot of that seat sees. Enumerated
actions become one button each (the action's JSON rides along, so the page sends back
exactly what the engine offered); described spaces get a small form: Brexit's placement
(each hand card kept, or put beside one revealed country, then confirmed) and Bra$ilis's
sealed bid (an amount within the bounds). Anything else falls back to a JSON box.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from games.brasilis.cards import NEWS
from games.brexit.cards import COUNTRY_NAME, NAME

Obs = Mapping[str, Any]

KIND_TITLE = {
    "placement": "Place your cards beside the revealed countries, then confirm",
    "effect": "Choose your effect's target",
    "dispute": "Play a card on a politician, or pass",
    "auction_choice": "Choose the aid to auction",
    "bid": "Your sealed bid",
    "destination": "Give the news to a politician",
    "lawyer": "Use your lawyer?",
    "media_pick": "Pick the media's news",
    "trade_reply": "Answer the trade offer",
}


def _name(value: Any) -> str:
    """A card or country id by its printed name, if it has one."""
    if isinstance(value, str):
        if value in COUNTRY_NAME:
            return COUNTRY_NAME[value]
        if value in NAME:
            return NAME[value]
        if value in NEWS:
            return NEWS[value].headline
    return str(value)


def _seat(k: Any, names: Sequence[str], me: int) -> str:
    if k == me:
        return "yourself"
    if isinstance(k, int) and 0 <= k < len(names):
        return names[k]
    return str(k)


def _power_card(card: Any, observation: Obs) -> str:
    for entry in observation.get("hand") or []:
        if isinstance(entry, Mapping) and entry.get("id") == card:
            return f"{entry.get('kind')} ({card})"
    return str(card)


def describe(action: Mapping[str, Any], observation: Obs, names: Sequence[str], me: int) -> str:
    """One enumerated action as a person reads it."""
    if action.get("pass") is True:
        return "Pass"
    if "play" in action:
        text = f"Play {_power_card(action['play'], observation)}"
        if "target" in action:
            text += f" on {_seat(action['target'], names, me)}"
        extra = {k: v for k, v in action.items() if k not in ("play", "target")}
        return text + "".join(f", {k} {_name(v)}" for k, v in extra.items())
    if "give_to" in action:
        return f"Give the news to {_seat(action['give_to'], names, me)}"
    if "choose_aid" in action:
        return f"Auction the {action['choose_aid']}"
    if "lawyer" in action:
        return "Use the lawyer" if action["lawyer"] else "Do not use the lawyer"
    if "effect" in action:
        if action["effect"] == "none":
            return "No effect"
        rest = ", ".join(
            f"{_seat(v, names, me) if k in ('seat', 'target') else _name(v)}"
            for k, v in action.items()
            if k != "effect"
        )
        effect = str(action["effect"]).replace("_", " ")
        return f"{effect.capitalize()}: {rest}" if rest else effect.capitalize()
    return ", ".join(f"{k} {_name(v)}" for k, v in action.items()) or json.dumps(action)


def controls(legal: Obs, observation: Obs, names: Sequence[str], me: int) -> dict[str, Any]:
    """The template context of one decision's controls."""
    kind = str(legal.get("kind", ""))
    out: dict[str, Any] = {"kind": kind, "title": KIND_TITLE.get(kind, kind.replace("_", " "))}
    actions = legal.get("actions") or []
    space = legal.get("space") or {}
    if actions:
        out["choices"] = [
            {"label": describe(a, observation, names, me), "json": json.dumps(a)} for a in actions
        ]
    elif kind == "placement" and "cards" in space:
        countries = {s["slot"]: _name(s.get("country")) for s in observation.get("slots") or []}
        out["placement"] = {
            "cards": [{"id": c, "name": _name(c)} for c in space["cards"]],
            "slots": [{"slot": k, "name": countries.get(k, f"slot {k}")} for k in space["slots"]],
        }
    elif "bid" in space:
        out["bid"] = dict(space["bid"])
    else:
        out["raw"] = json.dumps(legal)
    return out
