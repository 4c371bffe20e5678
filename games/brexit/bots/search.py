"""A determinized Monte Carlo Brexit player: UCB1 over a few candidate actions, greedy rollouts.

Each iteration samples the hidden cards consistently with this seat's
observation (opponents' hands, their face-down placements, the decks and the
other agendas are redealt from what this seat cannot see), applies one
candidate action and lets greedy players finish the game. The candidate with
the best mean reward (a win, shared wins split, plus a small score margin) is
played. The true state is only cloned; every part of it this seat cannot see
is overwritten before it is used.
"""

from __future__ import annotations

import json
import random
from typing import Any

from games.brexit.bots import greedy
from games.brexit.cards import COUNTRY_SPECIFIC, KIND
from games.brexit.observe import observe
from games.brexit.rules import RULES
from games.brexit.state import PLACEMENT, State
from games.engine.match import Player
from games.engine.search import Budget, search
from games.engine.types import Action

DEFAULT_BUDGET_MS = 30.0
MAX_ITERATIONS = 10_000
"""The cap when only a time budget is given."""
MAX_EFFECT_CANDIDATES = 12
UCB_C = 0.7
MARGIN_WEIGHT = 0.02
"""Reward per point of score over the best rival: breaks near-ties between candidates."""


def determinize(state: State, seat: int, rng: random.Random) -> State:
    """A copy of ``state`` with everything ``seat`` cannot see redealt at random."""
    s = RULES.load(RULES.dump(state))
    others = [p for p in range(s.seats) if p != seat]
    # Agendas: the other seats' and the agenda deck's are one unseen pool (B-19).
    holders = [p for p in others if s.agendas[p] is not None]
    agendas = [s.agendas[p] for p in holders] + s.agenda_deck
    rng.shuffle(agendas)
    for p in holders:
        s.agendas[p] = agendas.pop()
    s.agenda_deck = [a for a in agendas if a is not None]
    # Negotiation cards: unseen ones are opponents' hands, their face-down cards and the deck.
    face_down = not s.flipped and s.phase == PLACEMENT
    pool = list(s.negotiation_deck)
    own_specific: dict[int, list[str]] = {}
    for p in others:
        hidden = list(s.hands[p]) + (list(s.placed_cards[p]) if face_down else [])
        # Country-specific cards never leave their nation's hand except by being played (B-4).
        own_specific[p] = [c for c in hidden if KIND[c] == COUNTRY_SPECIFIC]
        pool.extend(c for c in hidden if KIND[c] != COUNTRY_SPECIFIC)
    rng.shuffle(pool)
    for p in others:
        placed = len(s.placed_cards[p]) if face_down else 0
        size = len(s.hands[p]) + placed
        cards = own_specific[p] + [pool.pop() for _ in range(size - len(own_specific[p]))]
        rng.shuffle(cards)
        if placed:
            s.placed_cards[p] = cards[:placed]
        s.hands[p] = cards[placed:]
    s.negotiation_deck = pool
    # Country deck: only the cards Takes put on top are known (B-10, B-23).
    deck = s.country_deck
    cut = len(deck) - s.known_top
    unknown = deck[:cut]
    rng.shuffle(unknown)
    s.country_deck = unknown + deck[cut:]
    return s


def _key(action: Action) -> str:
    if "place" in action:
        return json.dumps(sorted((p["card"], p["slot"]) for p in action["place"]))
    return json.dumps(action, sort_keys=True)


def candidates(obs: dict[str, Any], legal: Any) -> list[Action]:
    """A handful of distinct actions worth comparing; the greedy choice first."""
    found: dict[str, Action] = {}
    if legal["kind"] == PLACEMENT:
        options = [
            greedy.place(obs),
            greedy.place(obs, spend_cost=0.1),
            greedy.place(obs, spend_cost=0.35),
            greedy.place(obs, margin=1),
            greedy.place(obs, spend_cost=0.1, margin=2),
            {"place": []},
        ]
    else:
        actions = legal["actions"] or [{"effect": "none"}]
        gains = greedy.effect_gains(obs)
        ranked = sorted(actions, key=lambda a: -gains(a))
        options = [greedy.choose(obs, legal), *ranked[:MAX_EFFECT_CANDIDATES]]
        if {"effect": "none"} not in options:
            options.append({"effect": "none"})
    for action in options:
        found.setdefault(_key(action), action)
    return list(found.values())


def rollout(state: State, seat: int, action: Action, rng: random.Random) -> float:
    """Play ``action`` then greedy play to the end; the reward of ``seat``."""
    RULES.decide(state, seat, action, rng)
    pending = RULES.pending(state)
    while pending:
        p = pending[0]["seat"]
        RULES.decide(state, p, greedy.act(state, p, rng), rng)
        pending = RULES.pending(state)
    result = RULES.outcome(state)
    assert result is not None
    ranks, scores = result["ranks"], result["scores"]
    win = 1.0 / ranks.count(1) if ranks[seat] == 1 else 0.0
    best_rival = max(s for i, s in enumerate(scores) if i != seat)
    return win + MARGIN_WEIGHT * (scores[seat] - best_rival)


def make(*, budget_ms: float | None = None, seed: int = 0, iterations: int | None = None) -> Player:
    """A search player within ``budget_ms`` of CPU time per decision and/or ``iterations`` pulls."""
    budget = Budget.of(
        budget_ms, iterations, default_ms=DEFAULT_BUDGET_MS, max_iterations=MAX_ITERATIONS
    )

    def act(state: State, seat: int, rng: random.Random) -> Action:
        legal = RULES.legal(state, seat)
        options = candidates(observe(state, seat), legal)
        # One draw from the caller's generator whatever the work done: callers stay reproducible.
        local = random.Random(rng.getrandbits(64) ^ seed)  # noqa: S311 (seeded playouts: reproducible by design, no secret)
        if len(options) == 1:
            return options[0]

        def pull(action: Action) -> float:
            return rollout(determinize(state, seat, local), seat, action, local)

        return search(options, pull, budget=budget, exploration=UCB_C)

    return act


act = make()
"""The search player with the default budget."""
