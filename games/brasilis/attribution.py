"""Who keeps the news, and what it does to them (S-22, S-34, S-18, S-17, S-24)."""

from __future__ import annotations

import random

from games.brasilis import revolution, tiebreak
from games.brasilis.aids import holds
from games.brasilis.cards import AID_COST, NEWS
from games.brasilis.fold import emit
from games.brasilis.money import bank_pays, pay_bank, transfer
from games.brasilis.state import State, effective
from games.brasilis.steps import Attribution, Cleared, Effects, Next
from games.engine.events import event
from games.engine.types import Event


def totals(state: State) -> list[int]:
    return [sum(effective(e) for e in stack) for stack in state.stacks]


def end_dispute(state: State, out: list[Event]) -> Next:
    """Everyone has passed: reveal face-down cards (S-28), then find the responsible one."""
    if state.discarded_down or any(e["down"] for stack in state.stacks for e in stack):
        shown = [
            [seat, i, e["card"] if e["card"] is not None else e.get("copy_of"), effective(e)]
            for seat, stack in enumerate(state.stacks)
            for i, e in enumerate(stack)
            if e["down"]
        ]
        payload = {"entries": shown, "eliminated": list(state.discarded_down)}  # S-36
        emit(state, out, event("faces_revealed", payload))
    influence = totals(state)
    top = max(influence)
    tied = [s for s in range(state.n) if influence[s] == top]
    if len(tied) == 1:
        return Attribution(tied[0], None, tuple(influence))
    chooser = tiebreak.benefited(state, tied)  # S-22 step 2, S-34
    emit(state, out, event("tie", {"tied": tied, "chooser": chooser, "totals": influence}))
    emit(state, out, event("awaiting", {"kind": "destination", "seats": [chooser]}))
    return None


def attribute(
    state: State,
    out: list[Event],
    seat: int,
    chooser: int | None,
    influence: tuple[int, ...] | None = None,
) -> Next:
    news = state.news
    assert news is not None
    payload = {
        "seat": seat,
        "news": news,
        "chooser": chooser,
        "totals": list(influence) if influence else totals(state),
    }
    emit(state, out, event("news_attributed", payload))
    if holds(state, seat, "lawyer") and state.money[seat] >= AID_COST["lawyer"]:
        emit(state, out, event("awaiting", {"kind": "lawyer", "seats": [seat]}))
        return None
    return Effects(seat, news)


def lawyer(state: State, out: list[Event], seat: int, use: bool) -> Next:
    """S-18: paying cancels the news outright; Fury does not move."""
    news = state.piles[seat][-1]
    if use:
        emit(state, out, event("lawyer_used", {"seat": seat, "news": news}, actor=seat))
        transfer(state, out, seat, None, AID_COST["lawyer"], "lawyer")
        return Cleared()
    emit(state, out, event("lawyer_declined", {"seat": seat}, actor=seat))
    return Effects(seat, news)


def effects(state: State, out: list[Event], rng: random.Random, seat: int, news: str) -> Next:
    card = NEWS[news]
    image = state.image[seat]
    top = state.image_max
    if card.image > 0:
        new = min(top, image + card.image)
    elif card.image < 0 and state.aid_owner["advertiser"] != seat:  # S-17
        new = max(-top, image + card.image)
    else:
        new = image
    if new != image:
        emit(state, out, event("image", {"seat": seat, "value": new, "reason": "news"}))
    if card.money > 0:
        bank_pays(state, out, seat, card.money, "news")
    elif card.money < 0:
        pay_bank(state, out, seat, -card.money, "news")
    revolution.add_fury(state, out, rng, -card.image)  # moves even at HELL or with the Advertiser
    return Cleared()
