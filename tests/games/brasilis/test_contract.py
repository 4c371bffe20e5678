"""What a bot is promised: the hand with its kinds, the news during the Lawyer decision,
the documented default actions, the public discard (docs/games/brasilis.md)."""

from __future__ import annotations

from games.brasilis.bots import greedy
from games.brasilis.cards import POWER_KIND
from games.brasilis.rules import RULES

from .helpers import card, lawyer_decision, pending, play, start


def test_each_card_in_hand_comes_with_its_own_kind():
    # Sorted ids and sorted kinds do not line up for this hand: P_01 is a 1, P_41 an x0, P_19 a 3.
    m = start(4, hands=[["x0", "3", "1"], None, None, None])
    hand = RULES.observe(m.state, 0)["hand"]
    assert hand == sorted(hand, key=lambda c: c["id"])
    assert [c["kind"] for c in hand] == [POWER_KIND[c["id"]] for c in hand]
    assert sorted(c["kind"] for c in hand) == ["1", "3", "x0"]
    assert "hand_kinds" not in RULES.observe(m.state, 0)
    assert RULES.observe(m.state, None)["hand"] is None


def test_the_news_being_decided_is_observed_during_the_lawyer_decision():
    m = lawyer_decision()
    for seat in (0, 1, None):
        assert RULES.observe(m.state, seat)["news"]["id"] == "A01"


def test_greedy_uses_its_lawyer_on_a_scandal():
    m = lawyer_decision()  # A01: image -2, 3 negative votes
    assert greedy.choose(RULES.observe(m.state, 0), RULES.legal(m.state, 0)) == {"lawyer": True}


def test_default_dispute_action_with_only_modifiers_is_the_first_legal_action():
    """Documented: pass if legal, else the lowest influence card on oneself, else the first legal action."""
    m = start(
        4,
        round=2,
        aids=[None, "colonel", None, None],
        money=[0, 500, 0, 0],
        wallet_order=[0, 1, 2, 3],
        hands=[["1", "1"], ["x2"], [], ["1"]],
        power_deck=["x0"],
        reveal_in_order=True,
    )
    play(m, 0, "1", 1)
    m.play(1, {"aid": "colonel"})  # draws the x0; still only modifiers, still in C
    m.play(3, {"pass": True})
    play(m, 0, "1", 0)
    assert pending(m) == [(1, "dispute")]
    legal = RULES.legal(m.state, 1)["actions"] or []
    assert {"pass": True} not in legal  # S-11: U = {0}, C = {1}
    assert {"play": card(m, 1, "x0"), "target": 1} in legal  # its own top card is open too
    assert RULES.default_action(m.state, 1) == legal[0] == {"play": card(m, 1, "x0"), "target": 0}


def test_default_dispute_action_plays_the_lowest_influence_card_on_oneself():
    m = start(4, wallet_order=[0, 1, 2, 3], hands=[["3", "1"], [], [], ["2"]])
    play(m, 0, "3", 0)
    # Seat 3 is the only other who can play: U + C - 1 = 1 + 1 - 1 < 2.
    assert RULES.default_action(m.state, 3) == {"play": card(m, 3, "2"), "target": 3}


def test_more_your_way_hand_size_sets_the_opening_deal_too():
    m = start(4, options={"more_your_way": {"hand_size": 3}})
    assert RULES.observe(m.state, None)["hand_sizes"] == [3, 3, 3, 3]
