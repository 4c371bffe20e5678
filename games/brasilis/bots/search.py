"""A determinized Monte Carlo Bra$ilis politician: UCB1 over dispute actions, greedy rollouts.

Each iteration redeals what this seat cannot see (rivals' hands, face-down
influence of rivals, the Power deck, the news deck and set-aside news, the
news in rivals' secret piles), applies one candidate action and lets greedy
politicians finish the dispute. The reward is the change of this seat's worth
(votes, image, money, hand) minus the rivals' mean change, so the randomly
redealt piles cancel out. Only disputes are searched; the other decisions
(bids, aid choice, destination, Lawyer, Media Control, trade replies) are
one-step questions that the greedy rule answers.
"""

from __future__ import annotations

import random
from typing import Any

from games.brasilis.bots import greedy
from games.brasilis.cards import INFLUENCE_VALUE, MONEY_UNIT, NEWS, is_news, pile_votes
from games.brasilis.dispute import must_play
from games.brasilis.rules import RULES
from games.brasilis.state import State, effective
from games.engine.match import Player
from games.engine.search import Budget, search
from games.engine.types import Action

DEFAULT_BUDGET_MS = 40.0
MAX_ITERATIONS = 10_000
MAX_CANDIDATES = 10
HAND_WEIGHT = greedy.CARD_COST
"""Votes per influence point still in hand (a special card counts as 2 points)."""
MAX_ROLLOUT_STEPS = 400
MAX_REDEALS = 20
UCB_C = 1.0
"""Exploration in vote units: rewards are changes of worth, roughly -3..3."""


def determinize(state: State, seat: int, rng: random.Random) -> State:
    """A copy of ``state`` with everything ``seat`` cannot see redealt at random.

    The result depends only on what ``seat`` observes (and ``rng``): every unseen
    group of cards is sorted before it is shuffled, so neither the true cards nor
    their true order can show through.
    """
    s = RULES.load(RULES.dump(state))
    if s.phase == "over":
        return s
    others = [p for p in range(s.n) if p != seat]
    s.options = {k: v for k, v in s.options.items() if k != "scenario"}  # never observed
    # Power cards: rivals' hands, the deck, face-down cards this seat does not know (on a
    # stack, or eliminated and waiting in the discard: S-36) are one unseen pool.
    hidden_entries = [
        e
        for stack in s.stacks
        for e in stack
        if e["down"] and e["known_by"] != seat and e["card"] is not None
    ]
    hidden_discard = [
        i
        for i, c in enumerate(s.power_discard)
        if c in s.discarded_down and s.discarded_down[c] != seat
    ]
    pool: list[str] = list(s.power_deck) + [e["card"] for e in hidden_entries]
    pool += [s.power_discard[i] for i in hidden_discard]
    for p in others:
        pool.extend(s.hands[p])
    pool.sort()
    rng.shuffle(pool)

    def influence() -> str:  # face-down cards are influence cards (S-28)
        return pool.pop(next(i for i, c in enumerate(pool) if c in INFLUENCE_VALUE))

    redealt: dict[str, str] = {}
    for e in hidden_entries:
        card = redealt[e["card"]] = influence()
        e["card"] = card
        e["value"] = INFLUENCE_VALUE[card]
    for i in hidden_discard:
        old = s.power_discard[i]
        card = s.power_discard[i] = influence()
        s.discarded_down[card] = s.discarded_down.pop(old)
    # A Palanque copy of a hidden card is as hidden as the original (S-15, S-36).
    originals = {e["card"]: e for stack in s.stacks for e in stack if e["card"] is not None}
    for stack in s.stacks:
        for e in stack:
            if e["card"] is None and e["down"] and e["known_by"] != seat:
                original = originals[redealt[e["copy_of"]]]
                e["copy_of"] = original["card"]
                e["value"] = effective(original)
    for p in others:
        size = len(s.hands[p])
        s.hands[p] = [pool.pop() for _ in range(size)]
    s.power_deck = pool
    # News: the deck, the set-aside pool, what was offered to another revealer, rivals' piles.
    offered_hidden = s.revealer != seat and bool(s.offered)
    unseen = list(s.news_deck) + list(s.pool) + (list(s.offered) if offered_hidden else [])
    for p in others:
        unseen.extend(c for c in s.piles[p] if is_news(c))
    unseen.sort()
    # A REVOLUTION is never kept (S-27): it can only be in the deck or the pool.
    kept = [c for c in unseen if not NEWS[c].revolution]
    rng.shuffle(kept)
    for p in others:
        s.piles[p] = [kept.pop() if is_news(c) else c for c in s.piles[p]]
    rest = kept + [c for c in unseen if NEWS[c].revolution]
    rng.shuffle(rest)
    if offered_hidden:
        s.offered = [rest.pop() for _ in s.offered]
    s.pool = [rest.pop() for _ in s.pool]
    s.news_deck = rest
    # Sealed bids (S-21): who has bid is public, the amounts are not.
    for p in others:
        if s.bids and s.bids[p] is not None:
            s.bids[p] = rng.randrange(s.money[p] // MONEY_UNIT + 1) * MONEY_UNIT
    return s


def sample(state: State, seat: int, may_pass: bool, rng: random.Random) -> State | None:
    """A determinization consistent with the seat's legal actions.

    Whether this seat may pass depends on which rivals can still play (S-11 with
    S-37), so being told "you may (not) pass" says something about their hands;
    redeals that contradict it are drawn again, up to MAX_REDEALS times.
    """
    for _ in range(MAX_REDEALS):
        world = determinize(state, seat, rng)
        if must_play(world, seat) != may_pass:
            return world
    return None


def worth(state: State, seat: int) -> float:
    """A politician's standing in votes: the pile, image and money, and the hand still to play."""
    hand = sum(INFLUENCE_VALUE.get(c, 2) for c in state.hands[seat])
    return (
        sum(pile_votes(c) for c in state.piles[seat])
        + greedy.IMAGE_WEIGHT * state.image[seat]
        + greedy.MONEY_WEIGHT * state.money[seat]
        + HAND_WEIGHT * hand
    )


def rollout(state: State, seat: int, action: Action, rng: random.Random) -> float:
    """Play ``action``, let greedy politicians finish this news; the relative change of worth."""
    before = [worth(state, p) for p in range(state.n)]
    news = state.news
    RULES.decide(state, seat, action, rng)
    for _ in range(MAX_ROLLOUT_STEPS):
        # The news leaves the table when attributed; the Lawyer may still decide on it.
        if state.news not in (news, None) or state.phase not in (
            "dispute",
            "destination",
            "lawyer",
        ):
            break
        p = state.waiting[0]
        RULES.decide(state, p, greedy.act(state, p, rng), rng)
    delta = [worth(state, p) - before[p] for p in range(state.n)]
    rivals = [d for p, d in enumerate(delta) if p != seat]
    return delta[seat] - sum(rivals) / len(rivals)


def candidates(obs: dict[str, Any], actions: list[Action]) -> list[Action]:
    """The greedy choice, the best-scored others and passing (when legal)."""
    greedy.with_kinds(obs)
    ranked = sorted(actions, key=lambda a: -greedy.dispute_score(obs, a))
    chosen = [greedy.choose_dispute(obs, actions)]
    for a in ranked:
        if len(chosen) >= MAX_CANDIDATES:
            break
        if a not in chosen:
            chosen.append(a)
    if {"pass": True} in actions and {"pass": True} not in chosen:
        chosen.append({"pass": True})
    return chosen


def make(*, budget_ms: float | None = None, seed: int = 0, iterations: int | None = None) -> Player:
    """A search player within ``budget_ms`` of CPU time per decision and/or ``iterations`` pulls."""
    budget = Budget.of(
        budget_ms, iterations, default_ms=DEFAULT_BUDGET_MS, max_iterations=MAX_ITERATIONS
    )

    def act(state: State, seat: int, rng: random.Random) -> Action:
        legal = RULES.legal(state, seat)
        obs = RULES.observe(state, seat)
        # One draw from the caller's generator whatever the work done: callers stay reproducible.
        local = random.Random(rng.getrandbits(64) ^ seed)  # noqa: S311 (seeded playouts: reproducible by design, no secret)
        if legal["kind"] != "dispute" or not legal["actions"]:
            return greedy.choose(obs, legal)
        options = candidates(obs, legal["actions"])
        if len(options) == 1:
            return options[0]

        may_pass = {"pass": True} in legal["actions"]

        def pull(action: Action) -> float:
            world = sample(state, seat, may_pass, local)
            if world is None:
                return 0.0  # no redeal agreed with what this seat was told: a neutral pull
            return rollout(world, seat, action, local)

        return search(options, pull, budget=budget, exploration=UCB_C)

    return act


act = make()
"""The search player with the default budget."""
