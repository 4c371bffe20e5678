"""A person's controls for one Brexit decision: the legal actions, told in the game's own words.

Built from what a bot is given (the seat's observation and ``legal``), never from the
state, so a person's page can show no more than a bot of that seat sees. An effect's
enumerated targets become one button each, a sentence naming the deals and nations
("Take Canada from Scotland"), never an id; the placement (each hand card kept, or put
beside one revealed country, then confirmed) is the platform's ``placement`` widget,
each card shown with its value and effect.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.brexit.cards import COUNTRY_NAME, SWITCH_ANOTHER, SWITCH_TWO, SWITCH_YOUR, TAKE
from games.brexit.view.cards import card, country
from games.engine.view import Controls, Obs, decision_controls, plain_action

PLACEMENT_TITLE = "Place your cards face down beside the revealed countries, then confirm"


def _country(cid: Any) -> str:
    return COUNTRY_NAME.get(cid, "a country") if isinstance(cid, str) else "a country"


class _Seats:
    """The nations as the person at seat ``me`` reads them in a sentence."""

    def __init__(self, names: Sequence[str], me: int) -> None:
        self.names, self.me = names, me

    def name(self, k: Any) -> str:
        if k == self.me:
            return "yourself"
        return self.names[k] if isinstance(k, int) and 0 <= k < len(self.names) else "a player"

    def whose(self, k: Any) -> str:
        return "your" if k == self.me else f"{self.name(k)}'s"


def _slot_country(observation: Obs) -> str:
    """The country beside the card whose effect is chosen now."""
    effect = observation.get("effect") or {}
    for slot in observation.get("slots") or []:
        if slot.get("slot") == effect.get("slot"):
            return _country(slot.get("country"))
    return "the country beside it"


def describe(action: Mapping[str, Any], observation: Obs, names: Sequence[str], me: int) -> str:
    """One enumerated action as a sentence a player reads."""
    seats = _Seats(names, me)
    effect = action.get("effect")
    here = _slot_country(observation)
    if effect == "none":
        return "Use no effect"
    if effect == TAKE:
        return f"Take {_country(action.get('deal'))} from {seats.name(action.get('target'))}"
    if effect == SWITCH_ANOTHER:
        target = action.get("target")
        return f"Give {seats.name(target)} {here} for their {_country(action.get('deal'))}"
    if effect == SWITCH_YOUR:
        return f"Swap your {_country(action.get('deal'))} for {here}"
    if effect == SWITCH_TWO:
        first, second = action.get("first") or {}, action.get("second") or {}
        return (
            f"Swap {seats.whose(first.get('seat'))} {_country(first.get('deal'))} with"
            f" {seats.whose(second.get('seat'))} {_country(second.get('deal'))}"
        )
    return plain_action(action, _country)


def _effect_title(observation: Obs) -> tuple[str, list[dict[str, Any]]]:
    effect = observation.get("effect") or {}
    if not effect.get("card"):
        return "Choose your effect's target", []
    flipped = card(effect["card"])
    return (
        f"Your {flipped['name']} beside {_slot_country(observation)} takes effect: choose how",
        [flipped],
    )


def controls(legal: Obs, observation: Obs, names: Sequence[str], me: int) -> Controls:
    """The template context of one decision's controls."""
    effect_title, about = _effect_title(observation)

    def placement(kind: str, space: Obs) -> Controls | None:
        if kind != "placement" or "cards" not in space:
            return None
        countries = {s["slot"]: country(s.get("country")) for s in observation.get("slots") or []}
        return {
            "placement": {
                "cards": [card(c) for c in space["cards"]],
                "slots": [_slot(k, countries.get(k)) for k in space["slots"]],
            }
        }

    return decision_controls(
        legal,
        {"placement": PLACEMENT_TITLE, "effect": effect_title},
        lambda a: describe(a, observation, names, me),
        placement,
        about=about if legal.get("kind") == "effect" else (),
    )


def _slot(k: int, where: dict[str, Any] | None) -> dict[str, Any]:
    if where is None:
        return {"slot": k, "name": f"the country in place {k + 1}"}
    symbols = f" ({where['symbol_names']})" if where["symbol_names"] else ""
    return {"slot": k, "name": f"{where['name']}{symbols}"}
