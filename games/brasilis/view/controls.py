"""A person's controls for one Bra$ilis decision: the legal actions, told in the game's own words.

Built from what a bot is given (the seat's observation and ``legal``), never from the
state, so a person's page can show no more than a bot of that seat sees. Enumerated
actions become one button each; the sealed bid is the platform's ``bid`` widget (an
amount within the bounds).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.brasilis.cards import NEWS
from games.engine.view import Controls, Obs, decision_controls, plain_action, seat_name

KIND_TITLE = {
    "dispute": "Play a card on a politician, or pass",
    "auction_choice": "Choose the aid to auction",
    "bid": "Your sealed bid",
    "destination": "Give the news to a politician",
    "lawyer": "Use your lawyer?",
    "media_pick": "Pick the media's news",
    "trade_reply": "Answer the trade offer",
}


def _name(value: Any) -> str:
    """A News card by its headline, anything else as it is."""
    if isinstance(value, str) and value in NEWS:
        return NEWS[value].headline
    return str(value)


def _power_card(card: Any, observation: Obs) -> str:
    for entry in observation.get("hand") or []:
        if isinstance(entry, Mapping) and entry.get("id") == card:
            return f"{entry.get('kind')} ({card})"
    return str(card)


def describe(action: Mapping[str, Any], observation: Obs, names: Sequence[str], me: int) -> str:
    """One enumerated action as a person reads it."""
    if "play" in action:
        text = f"Play {_power_card(action['play'], observation)}"
        if "target" in action:
            text += f" on {seat_name(action['target'], names, me)}"
        extra = {k: v for k, v in action.items() if k not in ("play", "target")}
        return text + "".join(f", {k} {_name(v)}" for k, v in extra.items())
    if "give_to" in action:
        return f"Give the news to {seat_name(action['give_to'], names, me)}"
    if "choose_aid" in action:
        return f"Auction the {action['choose_aid']}"
    if "lawyer" in action:
        return "Use the lawyer" if action["lawyer"] else "Do not use the lawyer"
    return plain_action(action, _name)


def _bid(kind: str, space: Obs) -> Controls | None:
    return {"bid": dict(space["bid"])} if "bid" in space else None


def controls(legal: Obs, observation: Obs, names: Sequence[str], me: int) -> Controls:
    """The template context of one decision's controls."""
    return decision_controls(legal, KIND_TITLE, lambda a: describe(a, observation, names, me), _bid)
