"""The optional effects (Take, the three Switches): their legal targets and checks.

B-7: targets are chosen when the card activates, from the deals held at that
moment; with no legal target the card does nothing but keeps its value.
"""

from __future__ import annotations

from typing import Any

from games.brexit.cards import KIND, SWITCH_ANOTHER, SWITCH_TWO, SWITCH_YOUR, TAKE
from games.brexit.state import Activation, State
from games.engine.errors import IllegalAction
from games.engine.types import Action

NONE: dict[str, Any] = {"effect": "none"}


def targets(state: State, act: Activation) -> list[Action]:
    """Every way to use the activating card, without the "none" choice."""
    seat, kind = act["seat"], KIND[act["card"]]
    deals = state.deals
    others = [p for p in range(state.seats) if p != seat and deals[p]]
    if kind in (TAKE, SWITCH_ANOTHER):  # B-10, B-12: any deal of any other player
        return [{"effect": kind, "target": p, "deal": d} for p in others for d in deals[p]]
    if kind == SWITCH_YOUR:  # B-11: one of the owner's own deals
        return [{"effect": kind, "deal": d} for d in deals[seat]]
    if kind == SWITCH_TWO:  # B-13: two different other players, one deal each
        return [
            {"effect": kind, "first": {"seat": p, "deal": d}, "second": {"seat": q, "deal": e}}
            for i, p in enumerate(others)
            for q in others[i + 1 :]
            for d in deals[p]
            for e in deals[q]
        ]
    return []


def has_target(state: State, act: Activation) -> bool:
    seat, kind = act["seat"], KIND[act["card"]]
    others = sum(1 for p in range(state.seats) if p != seat and state.deals[p])
    if kind == SWITCH_YOUR:
        return bool(state.deals[seat])
    if kind == SWITCH_TWO:
        return others >= 2
    return others >= 1


def _deal_of(state: State, seat: int, target: Any, deal: Any, who: str) -> None:
    if type(target) is not int or not 0 <= target < state.seats:
        raise IllegalAction(
            f"target seat {target!r} does not exist (seats are 0..{state.seats - 1})"
        )
    if target == seat:
        raise IllegalAction(f"{who} must be another player's deal, not your own")
    if deal not in state.deals[target]:
        raise IllegalAction(f"seat {target} holds no trade deal {deal!r}")


def check_effect(state: State, act: Activation, action: Action) -> None:
    """Raise IllegalAction with the reason ``action`` cannot resolve ``act``."""
    effect = action.get("effect")
    kind = KIND[act["card"]]
    if effect == "none":
        if len(action) != 1:
            raise IllegalAction('{"effect": "none"} takes no other keys')
        return
    if effect != kind:
        raise IllegalAction(
            f'card {act["card"]!r} is a {kind!r} card: play {{"effect": {kind!r}, ...}} '
            f'or {{"effect": "none"}}, not {effect!r}'
        )
    seat = act["seat"]
    expected = {
        TAKE: {"effect", "target", "deal"},
        SWITCH_ANOTHER: {"effect", "target", "deal"},
        SWITCH_YOUR: {"effect", "deal"},
        SWITCH_TWO: {"effect", "first", "second"},
    }[kind]
    if set(action) != expected:
        raise IllegalAction(f"a {kind!r} action has exactly the keys {sorted(expected)}")
    if kind == SWITCH_YOUR:
        if action["deal"] not in state.deals[seat]:
            raise IllegalAction(f"you hold no trade deal {action['deal']!r}")
    elif kind == SWITCH_TWO:
        first, second = action["first"], action["second"]
        for side in (first, second):
            if not isinstance(side, dict) or set(side) != {"seat", "deal"}:
                raise IllegalAction('"first" and "second" are {"seat": n, "deal": "Cnn"} objects')
            _deal_of(state, seat, side["seat"], side["deal"], "each switched deal")
        if first["seat"] == second["seat"]:
            raise IllegalAction("switch two needs two different other players")
    else:
        _deal_of(state, seat, action["target"], action["deal"], "the target")
