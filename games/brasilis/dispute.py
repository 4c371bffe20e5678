"""The dispute over one news: turns, Power cards on stacks, passing (S-10..S-13, S-28)."""

from __future__ import annotations

import random

from games.brasilis import aids
from games.brasilis.cards import INFLUENCE_KINDS, INFLUENCE_VALUE, KIND_ORDER, NEWS, POWER_KIND
from games.brasilis.fold import emit
from games.brasilis.state import State
from games.brasilis.steps import DisputeEnd, Next, Turn
from games.engine.errors import IllegalAction
from games.engine.events import event, private_event
from games.engine.types import Action, Event


def next_turn(state: State, out: list[Event], start: int) -> Next:
    """Give the turn to the next politician who can act, auto-passing the empty-handed (S-10)."""
    n = state.n
    passed, hands = state.passed, state.hands
    for i in range(2 * n + 1):
        if all(passed):
            return DisputeEnd()
        seat = (start + i) % n
        if not passed[seat]:
            if hands[seat] or aids.usable(state, seat):
                emit(state, out, event("awaiting", {"kind": "dispute", "seats": [seat]}))
                return None
            emit(state, out, event("passed", {"seat": seat, "auto": True}, actor=seat))
        elif aids.usable(state, seat):
            emit(state, out, event("awaiting", {"kind": "dispute", "seats": [seat]}))
            return None
    raise AssertionError("no politician could act")  # pragma: no cover


def _open_top(state: State, target: int) -> bool:
    stack = state.stacks[target]
    return bool(stack) and not stack[-1]["locked"]


def can_play_something(state: State, seat: int) -> bool:
    return _can_play(state.hands[seat], any(_open_top(state, t) for t in range(state.n)))


def _can_play(hand: list[str], open_top: bool) -> bool:
    """An influence card can always be played; the other cards need an open top card (S-13)."""
    return bool(hand) and (open_top or any(c in INFLUENCE_VALUE for c in hand))


def must_play(state: State, seat: int) -> bool:
    """S-11 with S-37: a politician in C may not pass when |U| + |C| - 1 < 2.

    U: politicians who played a Power card on this news. C: the others who have
    not passed and can play a card on this news now. Applied as far as it can be.
    """
    played, passed, hands = state.played, state.passed, state.hands
    if played[seat] or passed[seat]:
        return False
    u = sum(played)
    if u >= 2:  # |C| >= 1 when it matters: the rule is met already
        return False
    n, stacks = state.n, state.stacks
    # Run once per dispute step by check, legal and the bots: written out, and stopping as
    # soon as C is large enough, rather than through _can_play and _open_top per seat.
    open_top = False
    for t in range(n):
        stack = stacks[t]
        if stack and not stack[-1]["locked"]:
            open_top = True
            break
    if not _can_play(hands[seat], open_top):
        return False
    enough = 3 - u  # u + |C| - 1 < 2 exactly when |C| < 3 - u
    c = 0
    for s in range(n):
        if played[s] or passed[s]:
            continue
        hand = hands[s]
        if hand and (open_top or any(card in INFLUENCE_VALUE for card in hand)):
            c += 1
            if c >= enough:
                return False
    return True


def _seat(state: State, value: object, what: str) -> int:
    if type(value) is not int or not 0 <= value < state.n:
        raise IllegalAction(f"{what} must be a seat number from 0 to {state.n - 1}, not {value!r}")
    return value


def check(state: State, seat: int, action: Action) -> None:
    if "play" in action:
        if state.passed[seat]:
            raise IllegalAction(
                "you have passed on this news and can no longer play Power cards (S-10)"
            )
        card = action["play"]
        if card not in state.hands[seat]:
            raise IllegalAction(f"card {card!r} is not in your hand")
        target = _seat(state, action.get("target"), "target")
        kind = POWER_KIND[card]
        if kind in INFLUENCE_KINDS:
            return
        if not state.stacks[target]:
            raise IllegalAction(
                f"{kind} needs a card in front of politician {target}, whose stack is empty (S-13)"
            )
        if state.stacks[target][-1]["locked"]:
            raise IllegalAction(
                f"the top card in front of politician {target} is shared by a Palanque and locked (S-15)"
            )
        if kind == "reposition":
            dest = _seat(state, action.get("destination"), "destination")
            if dest == seat:
                raise IllegalAction(
                    "a Reposition cannot bring the card to yourself (rulebook, E-S8)"
                )
            if dest == target:
                raise IllegalAction("the destination must differ from the target (S-13)")
        return
    if "aid" in action:
        aid = action["aid"]
        if aid == "lawyer":
            raise IllegalAction(
                "the Lawyer can only be used right after a news is attributed to you (S-18)"
            )
        if aid not in ("colonel", "palanque"):
            raise IllegalAction(
                f"aid {aid!r} cannot be used in a dispute (Marketeer and Advertiser act on purchase)"
            )
        if state.aid_owner.get(aid) != seat:
            raise IllegalAction(f"you do not hold the {aid} this round")
        if state.aid_used[aid]:
            raise IllegalAction(f"you have already used the {aid} this round (S-20)")
        if aid == "colonel":
            if state.money[seat] < 200:
                raise IllegalAction(
                    "the Colonel costs $200 and you cannot pay it in full (S-6, S-16)"
                )
            if not (state.power_deck or state.power_discard):
                raise IllegalAction("there is no Power card left to draw")
            return
        nb = _seat(state, action.get("neighbour"), "neighbour")
        if nb not in aids.neighbours(state, seat):
            raise IllegalAction(f"politician {nb} is not seated next to you (S-15)")
        if nb not in aids.palanque_sources(state, seat):
            raise IllegalAction(
                f"the top card in front of politician {nb} is not an unlocked influence card (S-15)"
            )
        return
    if action.get("pass") is True:
        if must_play(state, seat):
            raise IllegalAction(
                "you may not pass: at least 2 politicians must play a Power card on each news (S-11)"
            )
        return
    raise IllegalAction(f"unknown dispute action {action!r}")


def apply(state: State, out: list[Event], rng: random.Random, seat: int, action: Action) -> Next:
    """Apply an action already checked; the turn then moves on."""
    if "play" in action:
        card = action["play"]
        kind = POWER_KIND[card]
        target = action["target"]
        if kind in INFLUENCE_KINDS:
            down = NEWS[state.news].black if state.news else False
            payload = {
                "seat": seat,
                "card": card,
                "target": target,
                "value": INFLUENCE_VALUE[card],
                "face_down": down,
            }
            if down:  # S-28: value known only to the player until the reveal
                ev = private_event(
                    "card_played",
                    payload,
                    to=[seat],
                    redacted={"seat": seat, "target": target, "face_down": True},
                    actor=seat,
                )
            else:
                ev = event("card_played", payload, actor=seat)
        elif kind in ("x0", "x2"):
            ev = event(
                "modifier_played",
                {"seat": seat, "card": card, "kind": kind, "target": target},
                actor=seat,
            )
        elif kind == "eliminate":
            top = state.stacks[target][-1]
            payload = {"seat": seat, "card": card, "target": target, "removed": top["card"]}
            if top["down"]:  # S-36: the removed card stays hidden from all but its player
                ev = private_event(
                    "eliminated",
                    {**payload, "face_down": True},
                    to=[top["known_by"]],
                    redacted={**payload, "removed": None, "face_down": True},
                    actor=seat,
                )
            else:
                ev = event("eliminated", payload, actor=seat)
        else:
            payload = {
                "seat": seat,
                "card": card,
                "target": target,
                "destination": action["destination"],
            }
            ev = event("repositioned", payload, actor=seat)
        emit(state, out, ev)
    elif "aid" in action:
        aids.use(state, out, rng, seat, action)
    elif state.passed[seat]:
        emit(state, out, event("skipped", {"seat": seat}, actor=seat))
    else:
        emit(state, out, event("passed", {"seat": seat, "auto": False}, actor=seat))
    return Turn((seat + 1) % state.n)


def legal(state: State, seat: int) -> list[Action]:
    """Every legal dispute action; identical cards are listed once (the lowest id)."""
    n = state.n
    actions: list[Action] = []
    if not state.passed[seat]:
        open_tops = [t for t in range(n) if _open_top(state, t)]
        seen: set[str] = set()
        for card in sorted(state.hands[seat], key=lambda c: (KIND_ORDER[POWER_KIND[c]], c)):
            kind = POWER_KIND[card]
            if kind in seen:
                continue
            seen.add(kind)
            if card in INFLUENCE_VALUE:
                actions.extend({"play": card, "target": t} for t in range(n))
            elif kind == "reposition":
                actions.extend(
                    {"play": card, "target": t, "destination": d}
                    for t in open_tops
                    for d in range(n)
                    if d not in (seat, t)
                )
            else:
                actions.extend({"play": card, "target": t} for t in open_tops)
    actions.extend(aids.uses(state, seat))
    if not must_play(state, seat):
        actions.append({"pass": True})
    return actions
