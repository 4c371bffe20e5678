"""The Aid auction from round 2 on: poorest chooses, sealed all-pay bids (S-2, S-21)."""

from __future__ import annotations

import random

from games.brasilis import tiebreak
from games.brasilis.aids import on_purchase
from games.brasilis.cards import AIDS, MIN_BID
from games.brasilis.fold import emit
from games.brasilis.money import transfer
from games.brasilis.state import State
from games.brasilis.steps import BeforeReveal, Next, NextLot
from games.engine.events import event, private_event
from games.engine.rng import keyed_order, match_seed
from games.engine.types import Event


def start(state: State, out: list[Event], rng: random.Random) -> Next:
    scenario = state.options.get("scenario") or {}
    fixed = scenario.get("auction_aids", {}).get(str(state.round))
    k, seed = min(state.n - 1, len(AIDS)), match_seed(rng)
    if fixed:
        shown = list(fixed)
    else:  # keyed by the round (games/engine/rng.py): twins see the same aids
        shown = (
            rng.sample(AIDS, k)
            if seed is None
            else keyed_order(seed, "aids", state.round, AIDS)[:k]
        )
    emit(state, out, event("aids_drawn", {"aids": shown}))
    return NextLot()


def poorest(state: State) -> int:
    eligible = [s for s in range(state.n) if state.eligible[s]]
    return min(eligible, key=lambda s: (state.money[s], *tiebreak.key(state, s)))


def next_lot(state: State, out: list[Event]) -> Next:
    if not state.shown_aids or not any(state.eligible):
        emit(state, out, event("auction_closed", {}))
        return BeforeReveal()
    chooser = poorest(state)
    if len(state.shown_aids) == 1:
        return open_lot(state, out, chooser, state.shown_aids[0])
    emit(state, out, event("awaiting", {"kind": "auction_choice", "seats": [chooser]}))
    return None


def open_lot(state: State, out: list[Event], chooser: int, aid: str) -> Next:
    emit(state, out, event("auction_opened", {"aid": aid, "chooser": chooser}, actor=chooser))
    bidders = [s for s in range(state.n) if state.eligible[s]]
    emit(state, out, event("awaiting", {"kind": "bid", "seats": bidders}))
    return None


def place_bid(state: State, out: list[Event], seat: int, amount: int) -> Next:
    emit(
        state,
        out,
        private_event(
            "bid", {"seat": seat, "amount": amount}, to=[seat], redacted={"seat": seat}, actor=seat
        ),
    )
    if state.waiting:
        return None
    bids = list(state.bids)
    aid = state.auction_aid
    assert aid is not None
    emit(state, out, event("bids_revealed", {"aid": aid, "bids": bids}))
    top = max(b for b in bids if b is not None)
    winner = (
        tiebreak.benefited(state, [s for s, b in enumerate(bids) if b == top])
        if top >= MIN_BID
        else None
    )
    for seat_, bid in enumerate(bids):
        if bid:
            transfer(state, out, seat_, None, bid, "bid")  # all-pay: every bid is lost
    if winner is None:
        emit(state, out, event("aid_discarded", {"aid": aid}))
    else:
        emit(state, out, event("aid_bought", {"aid": aid, "seat": winner, "price": top}))
        on_purchase(state, out, winner, aid)
    return NextLot()
