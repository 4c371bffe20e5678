"""Chance keyed by what it draws: twins share it after they diverge, a resumed match draws alike.

Twins are two games on one seed that differ in one seat's bot (a duplicate deal,
docs/ab-tests.md). Their streams differ in length from the first different decision, so a
generator keyed by the stream position would give them nothing in common after it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from games.engine.builtin import make_player
from games.engine.driver import Flush, InProcess, MatchDriver, MemorySink
from games.engine.registry import get
from games.engine.rng import keyed_order, match_seed, step_rng
from games.engine.types import Event

CARDS = [f"C{i:02}" for i in range(40)]


def test_a_keyed_order_is_repeatable_and_keeps_common_cards_in_the_same_order() -> None:
    order = keyed_order(7, "deck:x", 2, CARDS)
    assert order == keyed_order(7, "deck:x", 2, list(reversed(CARDS)))
    assert sorted(order) == CARDS and order != CARDS
    assert order != keyed_order(7, "deck:x", 3, CARDS) != keyed_order(8, "deck:x", 2, CARDS)
    assert order != keyed_order(7, "deck:y", 2, CARDS)
    fewer = keyed_order(7, "deck:x", 2, CARDS[5:])
    assert fewer == [c for c in order if c in set(CARDS[5:])]


def test_a_keyed_order_is_uniform_over_positions() -> None:
    tops = [keyed_order(3, "deck", count, CARDS[:4])[0] for count in range(4000)]
    assert all(900 < tops.count(card) < 1100 for card in CARDS[:4])


def test_only_a_steps_generator_carries_the_match_seed() -> None:
    rng = step_rng(12345, 9)
    assert match_seed(rng) == 12345
    rng.random()  # seeding swaps the class: the seed must outlive it
    assert match_seed(rng) == 12345
    assert match_seed(random.Random(1)) is None  # a search bot's rollouts


class Recording(MemorySink):
    """A memory sink that remembers where each flush ended: a resumed match starts there."""

    def __init__(self) -> None:
        super().__init__()
        self.ends: list[int] = []

    def __call__(self, flush: Flush) -> None:
        super().__call__(flush)
        self.ends.append(len(self.events))


def play(game: str, lineup: Sequence[str], seed: int, stored: Sequence[Event] = ()) -> Recording:
    players = [InProcess(make_player(game, bot, seed=s)) for s, bot in enumerate(lineup)]
    sink = Recording()
    sink.events.extend(stored)
    MatchDriver(
        get(game).rules,
        seats=len(lineup),
        seed=seed,
        options={},
        players=players,
        stored=stored,
        sink=sink,
        flush_every=1,
    ).run()
    return sink


@pytest.mark.parametrize("game", ["brexit", "brasilis"])
def test_a_match_resumed_anywhere_draws_what_an_uninterrupted_one_draws(game: str) -> None:
    """The keys' counts (a deck's rebuilds, a bot's decisions) are folded from the events."""
    lineup = ["random", "random", "random", "greedy"]
    whole = play(game, lineup, seed=41)
    cuts = whole.ends[:-1]
    for cut in cuts[1 :: max(1, len(cuts) // 7)]:
        resumed = play(game, lineup, seed=41, stored=whole.events[:cut])
        assert resumed.events == whole.events, f"resumed at version {cut}"


def reshuffles(events: Sequence[Event], deck: str) -> list[list[str]]:
    return [
        e["payload"]["order"]
        for e in events
        if e["type"] == "discard_reshuffled" and e["payload"]["deck"] == deck
    ]


def test_brexit_twins_rebuild_a_deck_in_the_same_order_after_they_diverge() -> None:
    """Seat 0's bot differs; a deck's rebuilds in the twins hold mostly the same cards, which
    come out in the same relative order. (Brexit rebuilds a deck rarely: at most once or twice
    a game, with five seats.)"""
    shared = compared = 0
    for seed in range(16):
        mine = play("brexit", ["random"] * 5, seed).events
        twin = play("brexit", ["greedy"] + ["random"] * 4, seed).events
        for deck in ("negotiation", "country"):
            for a, b in zip(reshuffles(mine, deck), reshuffles(twin, deck), strict=False):
                both = set(a) & set(b)
                compared += 1
                shared += [c for c in a if c in both] == [c for c in b if c in both]
    assert compared >= 3 and shared == compared
