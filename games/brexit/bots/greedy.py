"""A one-step heuristic Brexit player that reads only its observation and legal actions.

It bids on the revealed countries worth most to its agenda with as few card
points as it expects to need to beat the face-down counts already shown, and
uses Take and Switch effects where the immediate deal count improves for it.
The same :func:`choose` could run as an uploaded bot.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from games.brexit.cards import (
    AGENDA_SYMBOL,
    BLOCK,
    KIND,
    SWITCH_ANOTHER,
    SWITCH_TWO,
    SWITCH_YOUR,
    SYMBOLS,
    TAKE,
    VALUE,
)
from games.brexit.observe import observe
from games.brexit.rules import RULES
from games.brexit.state import State
from games.engine.types import Action, Legal

CARD_GUESS = 1.6
"""Expected value of one face-down card of an opponent (most cards are worth 2, Blocks/Takes 0)."""
LATER_GUESS = 2.0
"""What a seat that has not placed yet is expected to put on a slot it contests."""
SPEND_COST = 0.2
"""Points of score given up per card point spent: hands refill by one card a round."""


def deal_value(country: str, agenda: str | None) -> int:
    """B-19: a deal is worth 2 when it carries the agenda's symbol, else 1."""
    return 2 if agenda is not None and AGENDA_SYMBOL[agenda] in SYMBOLS[country] else 1


def _points(deals: list[str], agenda: str | None) -> int:
    return sum(deal_value(d, agenda) for d in deals)


def _needed(
    obs: dict[str, Any],
    slot: dict[str, Any],
    me: int,
    card_guess: float = CARD_GUESS,
    later_guess: float = LATER_GUESS,
) -> float:
    """Card points that probably beat every other seat on ``slot``, given the shown counts."""
    n = len(obs["hand_sizes"])
    start = obs["start_seat"]
    my_pos = (me - start) % n
    best = 0.0
    for seat, count in enumerate(slot["counts"]):
        if seat == me:
            continue
        if (seat - start) % n < my_pos:
            guess = count * card_guess
        else:  # still to place: the bigger the hand, the bigger the threat
            guess = later_guess if obs["hand_sizes"][seat] else 0.0
        best = max(best, guess)
    return math.floor(best) + 1


def place(
    obs: dict[str, Any],
    *,
    spend_cost: float = SPEND_COST,
    margin: int = 0,
    card_guess: float = CARD_GUESS,
    later_guess: float = LATER_GUESS,
    block_at: int = 2,
) -> Action:
    """A placement: cheapest winning bids on the most valuable slots, Takes wherever, Blocks to deny.

    The keywords are the other built-ins' styles (cautious, bold): the guesses of
    what rivals put on a slot, the price of a card point, and how many visible
    rival cards make a slot worth a Block.
    """
    me: int = obs["seat"]
    agenda = obs["agenda"]
    slots = [s for s in obs["slots"] if not s["blocked"]]
    hand = sorted(obs["hand"], key=lambda c: (-VALUE[c], c))
    if not obs["slots"]:
        return {"place": []}
    bidding = [c for c in hand if VALUE[c] > 0]
    chosen: list[dict[str, Any]] = []
    contested: set[int] = set()
    ranked = sorted(slots, key=lambda s: -deal_value(s["country"], agenda))
    for slot in ranked:
        need = _needed(obs, slot, me, card_guess, later_guess) + margin
        # Own cards already there count (a second placement is never possible, but keep it general).
        need -= sum(VALUE[c] for c in slot["cards"][me] or [])
        if need <= 0:
            continue
        picked: list[str] = []
        total = 0
        # Largest cards first, then swap the last for the smallest that still reaches the need.
        for card in bidding:
            if total >= need:
                break
            picked.append(card)
            total += VALUE[card]
        if total < need:
            continue
        last = picked[-1]
        for card in reversed(bidding):
            if card not in picked and total - VALUE[last] + VALUE[card] >= need:
                picked[-1] = card
                total = total - VALUE[last] + VALUE[card]
                break
        gain = deal_value(slot["country"], agenda) - spend_cost * total
        if gain <= 0:
            continue
        for card in picked:
            bidding.remove(card)
            chosen.append({"card": card, "slot": slot["slot"]})
        contested.add(slot["slot"])
    free = [c for c in hand if VALUE[c] == 0]
    others_hold = any(d for s, d in enumerate(obs["deals"]) if s != me)
    target = ranked[0]["slot"] if ranked else obs["slots"][0]["slot"]
    for card in free:
        kind = KIND[card]
        if kind == TAKE and others_hold:
            # Worth nothing in the bid but free to use when it flips (B-10).
            chosen.append({"card": card, "slot": next(iter(contested), target)})
        elif kind == BLOCK:
            # Deny the slot an opponent is visibly fighting for, if it is not one of ours.
            threats = [
                s
                for s in slots
                if s["slot"] not in contested
                and max(c for p, c in enumerate(s["counts"]) if p != me) >= block_at
            ]
            if threats:
                worst = max(threats, key=lambda s: max(s["counts"]))
                chosen.append({"card": card, "slot": worst["slot"]})
                contested.add(worst["slot"])
    return {"place": chosen}


def effect_gains(obs: dict[str, Any]) -> Callable[[Action], float]:
    """How much an effect action improves my deal points minus the leading opponent's deal
    count: what every action of one decision shares (the slot, its winner, the score before)
    is worked out once."""
    me: int = obs["seat"]
    agenda = obs["agenda"]
    effect = obs["effect"]
    slot = next((s for s in obs["slots"] if s["slot"] == effect["slot"]), None) if effect else None
    winner = None
    if slot is not None and slot["cards"] and all(c is not None for c in slot["cards"]):
        totals = [sum(VALUE[c] for c in cards) for cards in slot["cards"]]
        top = max(totals)
        if totals.count(top) == 1 and not slot["blocked"]:
            winner = totals.index(top)
    country = slot["country"] if slot else None

    def score(ds: list[list[str]], won: str | None) -> float:
        mine = _points(ds[me], agenda) + (deal_value(won, agenda) if won and winner == me else 0)
        rivals = [len(d) + (1 if won and winner == s else 0) for s, d in enumerate(ds) if s != me]
        return mine - (max(rivals) if rivals else 0)

    before = score(obs["deals"], country)

    def gain(action: Action) -> float:
        kind = action["effect"]
        deals = [list(d) for d in obs["deals"]]
        if kind == TAKE:
            deals[action["target"]].remove(action["deal"])
            return score(deals, country) - before
        if kind in (SWITCH_YOUR, SWITCH_ANOTHER) and country is not None:
            owner = me if kind == SWITCH_YOUR else action["target"]
            deals[owner].remove(action["deal"])
            deals[owner].append(country)
            return score(deals, action["deal"]) - before
        if kind == SWITCH_TWO:
            a, b = action["first"], action["second"]
            deals[a["seat"]].remove(a["deal"])
            deals[b["seat"]].remove(b["deal"])
            deals[a["seat"]].append(b["deal"])
            deals[b["seat"]].append(a["deal"])
            return score(deals, country) - before
        return 0.0

    return gain


def effect_gain(obs: dict[str, Any], action: Action) -> float:
    """One action's gain (effect_gains, for one action alone)."""
    return effect_gains(obs)(action)


def choose_effect(obs: dict[str, Any], legal: Legal, *, at_least: float = 0.0) -> Action:
    """The effect that improves the deal count most, if it gains more than ``at_least``."""
    actions = legal["actions"] or [{"effect": "none"}]
    best, best_gain = actions[0], at_least
    gains = effect_gains(obs)
    for action in actions:
        if action["effect"] == "none":
            continue
        gain = gains(action)
        if gain > best_gain:
            best, best_gain = action, gain
    return best


def choose(obs: dict[str, Any], legal: Legal) -> Action:
    """The greedy action from what one seat may see."""
    if legal["kind"] == "placement":
        return place(obs)
    return choose_effect(obs, legal)


def act(state: State, seat: int, rng: random.Random) -> Action:
    """In-process entry point: only this seat's observation and legal actions are used."""
    return choose(observe(state, seat), RULES.legal(state, seat))
