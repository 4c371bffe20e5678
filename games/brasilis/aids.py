"""The five Political Aids: on-purchase effects and the two usable in a dispute (S-15..S-20)."""

from __future__ import annotations

import random

from games.brasilis.cards import AID_COST
from games.brasilis.fold import emit
from games.brasilis.money import transfer
from games.brasilis.refill import draw
from games.brasilis.state import State, is_physical_influence
from games.engine.events import event, private_event
from games.engine.types import Action, Event


def neighbours(state: State, seat: int) -> list[int]:
    """Seats immediately left and right (both opponents in a 3-player game) (S-15)."""
    return sorted({(seat - 1) % state.n, (seat + 1) % state.n})


def holds(state: State, seat: int, aid: str) -> bool:
    return state.aid_owner.get(aid) == seat and not state.aid_used[aid]


def colonel_usable(state: State, seat: int) -> bool:
    return (
        holds(state, seat, "colonel")
        and state.money[seat] >= AID_COST["colonel"]
        and bool(state.power_deck or state.power_discard)
    )


def palanque_sources(state: State, seat: int) -> list[int]:
    """Neighbours whose top entry is an unlocked physical influence card."""
    if not holds(state, seat, "palanque"):
        return []
    found = []
    for nb in neighbours(state, seat):
        stack = state.stacks[nb]
        if stack and not stack[-1]["locked"] and is_physical_influence(stack[-1]):
            found.append(nb)
    return found


def usable(state: State, seat: int) -> bool:
    """Whether ``seat`` has an Aid it could use in the dispute right now (S-10)."""
    owner = state.aid_owner
    if owner["colonel"] == seat and colonel_usable(state, seat):
        return True
    return owner["palanque"] == seat and bool(palanque_sources(state, seat))


def uses(state: State, seat: int) -> list[Action]:
    found: list[Action] = []
    if colonel_usable(state, seat):
        found.append({"aid": "colonel"})
    found.extend({"aid": "palanque", "neighbour": nb} for nb in palanque_sources(state, seat))
    return found


def use(state: State, out: list[Event], rng: random.Random, seat: int, action: Action) -> None:
    aid = action["aid"]
    if aid == "colonel":
        emit(state, out, event("aid_used", {"seat": seat, "aid": aid}, actor=seat))
        transfer(state, out, seat, None, AID_COST["colonel"], "colonel")
        draw(state, out, rng, seat, 1)
    else:
        payload = {"seat": seat, "aid": aid, "neighbour": action["neighbour"]}
        emit(state, out, event("aid_used", payload, actor=seat))


def on_purchase(state: State, out: list[Event], seat: int, aid: str) -> None:
    """Marketeer and Advertiser act at once and count as used (S-19, S-17, S-20, S-35)."""
    if aid == "marketeer":
        emit(state, out, event("aid_used", {"seat": seat, "aid": aid}, actor=seat))
        if state.extra_votes:
            card = state.extra_votes[0]
            emit(
                state,
                out,
                private_event(
                    "extra_vote", {"seat": seat, "card": card}, to=[seat], redacted={"seat": seat}
                ),
            )
    elif aid == "advertiser":
        emit(state, out, event("aid_used", {"seat": seat, "aid": aid}, actor=seat))
        if state.image[seat] < state.image_max:
            emit(
                state,
                out,
                event(
                    "image", {"seat": seat, "value": state.image[seat] + 1, "reason": "advertiser"}
                ),
            )
