"""Rounds as pizza slices (S-1): set-aside news, salaries, reveals, round end."""

from __future__ import annotations

import random

from games.brasilis import refill, revolution, scoring
from games.brasilis.cards import INITIAL_SLICES, NEWS
from games.brasilis.fold import emit
from games.brasilis.money import bank_pays
from games.brasilis.state import State
from games.brasilis.steps import AuctionStart, BeforeReveal, Next, Reveal, RoundStart, Turn
from games.engine.events import event, private_event
from games.engine.rng import keyed_order, match_seed
from games.engine.types import Event


def start_round(state: State, out: list[Event], number: int, revealer: int | None = None) -> Next:
    """Steps 1-2 of a round; step 3 (the auction) follows from round 2 on (S-2)."""
    n = state.n
    slice_ = INITIAL_SLICES.get(n, 0) + number
    first = state.chief if revealer is None else revealer
    emit(state, out, event("round_started", {"round": number, "slice": slice_, "revealer": first}))
    count = n + 1 if state.options.get("media_control") else n  # S-33
    cards = state.news_deck[:count]
    emit(
        state,
        out,
        private_event("news_set_aside", {"cards": cards}, to=[], redacted={"count": len(cards)}),
    )
    for i in range(n):  # clockwise from the Chief, one at a time (S-8)
        bank_pays(state, out, (state.chief + i) % n, state.salary, "salary")
    return AuctionStart() if number >= 2 else BeforeReveal()


def before_reveal(state: State, out: list[Event], rng: random.Random) -> Next:
    """Refill check before every reveal (S-23), then the reveal (S-9) or the Media Control offer (S-33)."""
    refill.check(state, out, rng)
    pool = state.pool
    seed = match_seed(rng)
    # Keyed by the reveal (its round and place in it), news by news: twins whose pools
    # still hold the same news reveal the same one (games/engine/rng.py).
    drawn = (
        None if seed is None else keyed_order(seed, f"news:{state.round}", state.reveals_done, pool)
    )
    if state.options.get("media_control") and len(pool) >= 2:
        cards = rng.sample(pool, 2) if drawn is None else drawn[:2]
        seat = state.revealer
        emit(
            state,
            out,
            private_event(
                "news_offered",
                {"seat": seat, "cards": cards},
                to=[seat],
                redacted={"seat": seat, "count": 2},
            ),
        )
        emit(state, out, event("awaiting", {"kind": "media_pick", "seats": [seat]}))
        return None
    scenario = state.options.get("scenario") or {}
    if scenario.get("reveal_in_order"):
        card = pool[0]
    else:
        card = pool[rng.randrange(len(pool))] if drawn is None else drawn[0]
    return Reveal(card, "pool")


def reveal(state: State, out: list[Event], rng: random.Random, card: str, source: str) -> Next:
    emit(
        state,
        out,
        event("news_revealed", {"news": card, "revealer": state.revealer, "source": source}),
    )
    if NEWS[card].revolution:  # S-27: revolt, remove it, the same revealer draws from the pile
        revolution.resolve(state, out, rng, "card")
        emit(state, out, event("news_removed", {"news": card}))
        return Reveal(state.news_deck[0], "deck")
    return Turn(state.revealer)


def after_dispute(state: State, out: list[Event]) -> Next:
    """The played cards are discarded; the next politician reveals, or the round (or game) ends."""
    emit(state, out, event("dispute_cleared", {}))
    if state.reveals_done < state.n:
        return BeforeReveal()
    emit(state, out, event("round_ended", {"round": state.round, "leftover": len(state.pool)}))
    if state.round >= state.rounds:
        emit(state, out, event("game_over", scoring.final(state)))
        return None
    return RoundStart(state.round + 1)
