"""A random legal player: quick sampling of a legal move, passing often enough that games end."""

from __future__ import annotations

import random

from games.brasilis import aids
from games.brasilis.cards import INFLUENCE_VALUE, MONEY_UNIT, POWER_KIND
from games.brasilis.dispute import must_play
from games.brasilis.rules import RULES
from games.brasilis.state import State
from games.engine.types import Action

PASS_PROBABILITY = 0.6


def _dispute(state: State, seat: int, rng: random.Random) -> Action:
    n = state.n
    if state.passed[seat]:
        uses = aids.uses(state, seat)
        return rng.choice(uses) if uses and rng.random() < 0.5 else {"pass": True}
    forced = must_play(state, seat)
    if not forced and rng.random() < PASS_PROBABILITY:
        return {"pass": True}
    if rng.random() < 0.1:
        uses = aids.uses(state, seat)
        if uses:
            return rng.choice(uses)
    hand = state.hands[seat]
    stacks = state.stacks
    first = rng.randrange(len(hand)) if hand else 0
    for i in range(len(hand)):
        card = hand[(first + i) % len(hand)]
        if card in INFLUENCE_VALUE:
            return {"play": card, "target": rng.randrange(n)}
        targets = [t for t in range(n) if stacks[t] and not stacks[t][-1]["locked"]]
        if not targets:
            continue
        target = rng.choice(targets)
        if POWER_KIND[card] == "reposition":
            dests = [d for d in range(n) if d != seat and d != target]
            return {"play": card, "target": target, "destination": rng.choice(dests)}
        return {"play": card, "target": target}
    uses = aids.uses(state, seat)
    return rng.choice(uses) if uses else {"pass": True}


def act(state: State, seat: int, rng: random.Random) -> Action:
    kind = state.phase
    if kind == "dispute":
        return _dispute(state, seat, rng)
    if kind == "bid":
        money = state.money[seat]
        return {
            "bid": rng.randrange(0, money // MONEY_UNIT + 1) * MONEY_UNIT
            if rng.random() < 0.6
            else 0
        }
    if kind == "trade_reply":
        return {"accept": False}
    actions = RULES.legal(state, seat)["actions"]
    assert actions
    return rng.choice(actions)
