"""The built-in search bot samples only from what its seat observes (issue: Palanque copies kept their value)."""

from __future__ import annotations

import random

from games.brasilis.bots.search import determinize, make, sample
from games.brasilis.cards import INFLUENCE_VALUE, POWER_KIND
from games.brasilis.rules import RULES
from games.brasilis.state import State

from .helpers import play, start

SEARCHER = 3


def position():
    """A black-background dispute: a face-down 3 shared by a Palanque, a face-down 4 eliminated."""
    m = start(
        4,
        round=2,
        aids=[None, None, "palanque", None],
        wallet_order=[0, 1, 2, 3],
        news_deck=["A03", "B01", "B02", "B03"],
        hands=[["4", "1"], ["3", "2"], ["1", "2"], ["eliminate", "1"]],
        reveal_in_order=True,
    )
    play(m, 0, "4", 0)
    play(m, 1, "3", 1)
    m.play(2, {"aid": "palanque", "neighbour": 1})
    play(m, 3, "eliminate", 0)
    for seat in (0, 1, 2):
        m.play(seat, {"pass": True})
    assert m.state.waiting == [SEARCHER]
    return m.state


def _swap(s: State, old: str, new: str) -> None:
    """Exchange two Power cards wherever they lie in the state."""

    def one(card: str) -> str:
        return new if card == old else old if card == new else card

    s.power_deck = [one(c) for c in s.power_deck]
    s.power_discard = [one(c) for c in s.power_discard]
    s.hands = [[one(c) for c in h] for h in s.hands]
    s.discarded_down = {one(c): k for c, k in s.discarded_down.items()}
    for stack in s.stacks:
        for e in stack:
            if e["card"] is not None:
                e["card"] = one(e["card"])
                e["value"] = INFLUENCE_VALUE.get(e["card"], e["value"])
            elif e.get("copy_of") is not None:
                e["copy_of"] = one(e["copy_of"])


def other_world(state: State) -> State:
    """The same position with everything seat 3 cannot see changed."""
    s = RULES.load(RULES.dump(state))
    deck_five = next(c for c in s.power_deck if POWER_KIND[c] == "5")
    _swap(s, s.stacks[1][0]["card"], deck_five)  # seat 1's face-down 3 becomes a 5 ...
    s.stacks[2][0]["value"] = 5  # ... and so does the Palanque copy of it
    deck_two = next(c for c in s.power_deck if POWER_KIND[c] == "2")
    _swap(s, next(iter(s.discarded_down)), deck_two)  # the eliminated face-down card
    _swap(s, s.hands[0][0], next(c for c in s.power_deck if POWER_KIND[c] == "x2"))
    s.power_deck.reverse()
    s.news_deck.reverse()
    s.pool.reverse()
    return s


def test_the_other_world_looks_the_same_to_the_searcher():
    state = position()
    other = other_world(state)
    assert RULES.dump(other) != RULES.dump(state)
    assert RULES.observe(other, SEARCHER) == RULES.observe(state, SEARCHER)


def test_determinization_depends_only_on_the_seats_observation():
    state = position()
    other = other_world(state)
    for seed in range(5):
        mine = determinize(state, SEARCHER, random.Random(seed))
        theirs = determinize(other, SEARCHER, random.Random(seed))
        assert RULES.dump(mine) == RULES.dump(theirs)


def _power_cards(s: State) -> list[str]:
    cards = s.power_deck + s.power_discard + s.spent
    cards += [c for hand in s.hands for c in hand]
    cards += [e["card"] for stack in s.stacks for e in stack if e["card"]]
    return sorted(cards)


def test_determinization_keeps_what_the_seat_sees_and_stays_consistent():
    state = position()
    s = determinize(state, SEARCHER, random.Random(1))
    assert RULES.observe(s, SEARCHER)["stacks"] == RULES.observe(state, SEARCHER)["stacks"]
    original, copy = s.stacks[1][0], s.stacks[2][0]
    assert copy["copy_of"] == original["card"] and copy["value"] == original["value"]
    assert _power_cards(s) == _power_cards(state)


def test_the_search_bot_decides_the_same_in_both_worlds():
    state = position()
    other = other_world(state)
    bot = make(iterations=60)
    for seed in range(3):
        mine = bot(RULES.load(RULES.dump(state)), SEARCHER, random.Random(seed))
        theirs = bot(RULES.load(RULES.dump(other)), SEARCHER, random.Random(seed))
        assert mine == theirs


def test_redeals_agree_with_what_the_seat_may_do():
    """Seat 0 may pass only because both rivals can play (S-11 with S-37): a redeal giving a
    rival only modifiers would forbid the pass, so such redeals are drawn again."""
    m = start(3, wallet_order=[0, 1, 2], hands=[["1", "2"], ["2"], ["x0", "1"]])
    state, me = m.state, m.state.waiting[0]
    assert me == 0 and {"pass": True} in (RULES.legal(state, me)["actions"] or [])
    rng = random.Random(3)
    worlds = [sample(state, me, True, rng) for _ in range(30)]
    assert all(
        w is not None and {"pass": True} in (RULES.legal(w, me)["actions"] or []) for w in worlds
    )
    bot = make(iterations=40)
    for seed in range(4):
        action = bot(RULES.load(RULES.dump(state)), me, random.Random(seed))
        RULES.check(state, me, action)
