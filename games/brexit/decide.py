"""The two decisions (placement, effect): who decides, what is legal, and applying one.

``check`` validates without touching the state; ``decide`` checks, then folds
the decision's event and every automatic consequence up to the next decision.
"""

from __future__ import annotations

import random
from typing import Any

from games.brexit.actions import SHAPES
from games.brexit.effects import NONE, check_effect, targets
from games.brexit.state import EFFECT, PLACEMENT, State
from games.brexit.turn import emit, proceed
from games.engine.errors import IllegalAction
from games.engine.events import event, private_event
from games.engine.shapes import check_shape
from games.engine.types import Action, Event, Legal, Pending


def pending(state: State) -> list[Pending]:
    if state.phase == PLACEMENT:
        return [{"seat": state.turn, "kind": PLACEMENT}]
    if state.phase == EFFECT and state.activations:
        return [{"seat": state.activations[0]["seat"], "kind": EFFECT}]
    return []


def _awaited(state: State) -> tuple[int, str]:
    p = pending(state)
    if not p:
        raise IllegalAction("the game is over: no decision is awaited")
    return p[0]["seat"], p[0]["kind"]


def legal(state: State, seat: int) -> Legal:
    p = pending(state)
    if not p or p[0]["seat"] != seat:
        return {"kind": "none", "actions": [], "space": None}
    kind = p[0]["kind"]
    if kind == PLACEMENT:
        return {
            "kind": PLACEMENT,
            "actions": None,
            # Any subset of "cards", each on one of "slots": {"place": [{"card", "slot"}, ...]}.
            "space": {"cards": list(state.hands[seat]), "slots": list(range(len(state.slots)))},
        }
    act = state.activations[0]
    return {"kind": EFFECT, "actions": [dict(NONE), *targets(state, act)], "space": None}


def _placement(state: State, seat: int, action: Action) -> tuple[list[dict[str, Any]], list[int]]:
    """The validated placement (copied, so the event owns its data) and its count per slot."""
    if len(action) != 1 or "place" not in action:
        raise IllegalAction(
            f'a placement is awaited: send {{"place": [...]}}, not an action with keys {sorted(action)}'
        )
    place = action["place"]
    if type(place) is not list:
        raise IllegalAction('"place" must be a list of {"card": ..., "slot": ...} objects')
    n = len(state.slots)
    counts = [0] * n
    if not place:
        return [], counts
    hand = state.hands[seat]
    seen: set[str] = set()
    out = []
    for item in place:
        if type(item) is not dict or len(item) != 2 or "card" not in item or "slot" not in item:
            raise IllegalAction(f'each placement is {{"card": ..., "slot": ...}}, not {item!r}')
        card, slot = item["card"], item["slot"]
        if card not in hand:
            raise IllegalAction(f"card {card!r} is not in your hand")
        if card in seen:
            raise IllegalAction(f"card {card!r} is placed twice")
        seen.add(card)
        if type(slot) is not int or not 0 <= slot < n:
            raise IllegalAction(f"slot {slot!r} does not exist (slots are 0..{n - 1})")
        counts[slot] += 1
        out.append({"card": card, "slot": slot})
    return out, counts


def check(state: State, seat: int, action: Action) -> None:
    if state.phase == PLACEMENT:
        who, kind = state.turn, PLACEMENT
    else:
        who, kind = _awaited(state)
    if seat != who:
        raise IllegalAction(
            f"it is not seat {seat}'s decision: seat {who} must make a {kind} decision"
        )
    if not isinstance(action, dict):
        raise IllegalAction(f"an action is a JSON object, not {type(action).__name__}")
    check_shape(SHAPES[kind], action, kind)
    if kind == PLACEMENT:
        _placement(state, seat, action)
    else:
        if "effect" not in action:
            raise IllegalAction(
                f"an effect decision is awaited for card {state.activations[0]['card']!r}: "
                'send {"effect": ...}'
            )
        check_effect(state, state.activations[0], action)


def _effect_payload(state: State, action: Action) -> dict[str, Any]:
    act = state.activations[0]
    payload: dict[str, Any] = {"seat": act["seat"], "card": act["card"], "slot": act["slot"]}
    payload["effect"] = action["effect"]
    if "target" in action:
        payload["target"] = action["target"]
    if "deal" in action:
        payload["deal"] = action["deal"]
    if "first" in action:
        # Copied field by field: the stored event must not share objects with the bot's action.
        first, second = action["first"], action["second"]
        payload["first"] = {"seat": first["seat"], "deal": first["deal"]}
        payload["second"] = {"seat": second["seat"], "deal": second["deal"]}
    return payload


def decide(state: State, seat: int, action: Action, rng: random.Random) -> list[Event]:
    out: list[Event] = []
    if state.phase == PLACEMENT:
        if seat != state.turn or type(action) is not dict:
            check(state, seat, action)  # raises with the reason
        check_shape(SHAPES[PLACEMENT], action, PLACEMENT)
        place, counts = _placement(state, seat, action)
        emit(
            state,
            out,
            private_event(
                "cards_placed",
                {"seat": seat, "place": place},
                to=[seat],
                redacted={"seat": seat, "counts": counts},
                actor=seat,
            ),
        )
    else:
        check(state, seat, action)
        emit(state, out, event("effect_resolved", _effect_payload(state, action), actor=seat))
    proceed(state, rng, out)
    return out


def default_action(state: State, seat: int) -> Action:
    """A placement of nothing; "none" for an effect (documented in docs/games/brexit.md)."""
    if state.phase == EFFECT:
        return dict(NONE)
    return {"place": []}
