"""A person's controls for one Brexit decision: the legal actions, told in the game's own words.

Built from what a bot is given (the seat's observation and ``legal``), never from the
state, so a person's page can show no more than a bot of that seat sees. An effect's
enumerated targets become one button each; the placement (each hand card kept, or put
beside one revealed country, then confirmed) is the platform's ``placement`` widget.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.brexit.cards import COUNTRY_NAME, NAME
from games.engine.view import Controls, Obs, decision_controls, plain_action, seat_name

KIND_TITLE = {
    "placement": "Place your cards beside the revealed countries, then confirm",
    "effect": "Choose your effect's target",
}


def _name(value: Any) -> str:
    """A card or country id by its printed name, if it has one."""
    if isinstance(value, str):
        if value in COUNTRY_NAME:
            return COUNTRY_NAME[value]
        if value in NAME:
            return NAME[value]
    return str(value)


def describe(action: Mapping[str, Any], names: Sequence[str], me: int) -> str:
    """One enumerated action as a person reads it."""
    if "effect" in action:
        if action["effect"] == "none":
            return "No effect"
        rest = ", ".join(
            f"{seat_name(v, names, me) if k in ('seat', 'target') else _name(v)}"
            for k, v in action.items()
            if k != "effect"
        )
        effect = str(action["effect"]).replace("_", " ")
        return f"{effect.capitalize()}: {rest}" if rest else effect.capitalize()
    return plain_action(action, _name)


def controls(legal: Obs, observation: Obs, names: Sequence[str], me: int) -> Controls:
    """The template context of one decision's controls."""

    def placement(kind: str, space: Obs) -> Controls | None:
        if kind != "placement" or "cards" not in space:
            return None
        countries = {s["slot"]: _name(s.get("country")) for s in observation.get("slots") or []}
        return {
            "placement": {
                "cards": [{"id": c, "name": _name(c)} for c in space["cards"]],
                "slots": [
                    {"slot": k, "name": countries.get(k, f"slot {k}")} for k in space["slots"]
                ],
            }
        }

    return decision_controls(legal, KIND_TITLE, lambda a: describe(a, names, me), placement)
