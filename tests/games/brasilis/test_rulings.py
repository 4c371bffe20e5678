"""One test per ruling S-1..S-38 that changes behaviour (docs/games/brasilis.md), named after the ruling."""

from __future__ import annotations

import random

import pytest

from games.brasilis import aids, refill, scoring, tiebreak
from games.brasilis.bots import greedy
from games.brasilis.bots.random_legal import act
from games.brasilis.rules import RULES
from games.engine.errors import BadOptions, IllegalAction

from .helpers import (
    assert_replays,
    card,
    lawyer_decision,
    of_type,
    pending,
    play,
    stack_values,
    start,
)


def full_game(seats=4, seed=1, options=None):
    m = start(seats, seed, options)
    m.play_out([act] * seats, random.Random(seed))
    return m


@pytest.mark.parametrize(("seats", "rounds"), [(3, 8), (4, 6), (5, 5), (6, 4)])
def test_s1_rounds_are_pizza_slices(seats, rounds):
    m = start(seats)
    assert m.events[0]["payload"]["rounds"] == rounds
    assert of_type(m.events, "round_started")[0]["slice"] == 8 - rounds + 1
    assert start(seats, options={"more_your_way": {"rounds": 2}}).state.rounds == 2


def test_s2_first_auction_in_round_two():
    m = full_game()
    rounds_with_auction = []
    current = 0
    for ev in m.events:
        if ev["type"] == "round_started":
            current = ev["payload"]["round"]
        if ev["type"] == "aids_drawn":
            rounds_with_auction.append(current)
    assert rounds_with_auction == list(range(2, m.state.rounds + 1))


def test_s3_wallet_order_logged_and_chief_opens_every_round():
    m = full_game(seed=7)
    order = of_type(m.events, "wallet_order")[0]
    assert sorted(order["order"]) == [0, 1, 2, 3] and order["chief"] == order["order"][0]
    assert all(r["revealer"] == order["chief"] for r in of_type(m.events, "round_started"))


def test_s4_tie_break_image_then_money_then_wallet():
    m = start(4, wallet_order=[3, 2, 1, 0], images=[1, 1, 1, 0], money=[100, 200, 200, 900])
    s = m.state
    assert tiebreak.order(s, range(4)) == [2, 1, 0, 3]
    assert tiebreak.benefited(s, [0, 3]) == 0 and tiebreak.suffers(s, [1, 2]) == 1


def test_s5_starting_money_zero_bank_holds_all():
    m = start(4)
    assert m.events[0]["payload"]["bank"] == 6000
    assert m.state.money == [300] * 4 and m.state.bank == 6000 - 1200  # only the round-1 salary


def test_s6_money_never_negative_and_voluntary_payments_in_full():
    m = start(
        4,
        round=2,
        aids=[None, "colonel", None, None],
        money=[0, 100, 0, 0],
        wallet_order=[0, 1, 2, 3],
        hands=[["1"], ["1"], ["1"], ["1"]],
        reveal_in_order=True,
    )
    play(m, 0, "1", 0)
    with pytest.raises(IllegalAction, match="in full"):
        m.play(1, {"aid": "colonel"})


def test_s7_cpmv_takes_from_richest_other_loser_of_tie_break():
    m = start(
        4,
        wallet_order=[0, 1, 2, 3],
        money=[3000, 3000, 0, 0],
        hands=[["1"], ["1"], ["5"], ["1"]],
        news_deck=["D05"],
        reveal_in_order=True,
    )
    assert m.state.bank == 0
    play(m, 0, "1", 0)
    play(m, 1, "1", 1)
    ev = play(m, 2, "5", 2)
    ev += m.play(3, {"pass": True})
    paid = [p for p in of_type(ev, "paid") if p["reason"] == "cpmv"]
    assert paid == [{"from": 1, "to": 2, "amount": 300, "reason": "cpmv"}]


def test_s8_salary_clockwise_from_chief_under_cpmv():
    m = start(3, wallet_order=[2, 0, 1])
    assert [p["to"] for p in of_type(m.events, "paid")] == [2, 0, 1]


def test_s9_each_politician_reveals_once_per_round():
    m = full_game(seats=5, seed=3)
    revealers = [p["revealer"] for p in of_type(m.events, "news_revealed") if p["news"] != "R01"]
    revealers = [
        r
        for r, p in zip(
            revealers,
            [p for p in of_type(m.events, "news_revealed") if p["news"] != "R01"],
            strict=True,
        )
        if p["source"] != "deck" or True
    ]
    per_round = [sorted(set(revealers[i : i + 5])) for i in range(0, 25, 5)]
    assert all(r == [0, 1, 2, 3, 4] for r in per_round)


def test_s10_auto_pass_skip_and_passed_politician_offered_aid():
    m = start(
        4,
        round=2,
        aids=[None, "colonel", None, None],
        money=[0, 500, 0, 0],
        wallet_order=[0, 1, 2, 3],
        hands=[["1", "1"], ["1", "1"], ["1"], []],
        reveal_in_order=True,
    )
    play(m, 0, "1", 0)
    m.play(1, {"pass": True})
    ev = play(m, 2, "1", 2)
    assert {"seat": 3, "auto": True} in of_type(ev, "passed")
    assert pending(m) == [(0, "dispute")]
    play(m, 0, "1", 0)
    assert pending(m) == [(1, "dispute")]  # passed, but holds a usable Colonel
    assert RULES.legal(m.state, 1)["actions"] == [{"aid": "colonel"}, {"pass": True}]
    ev = m.play(1, {"aid": "colonel"})  # S-16
    assert [e["type"] for e in ev[:3]] == ["aid_used", "paid", "dealt"]
    assert ev[1]["payload"]["amount"] == 200 and len(ev[2]["payload"]["cards"]) == 1
    assert_replays(m)


def test_s11_at_least_two_must_play():
    m = start(3, wallet_order=[0, 1, 2], hands=[["1"], ["1"], ["1"]], reveal_in_order=True)
    m.play(0, {"pass": True})
    with pytest.raises(IllegalAction, match="S-11"):
        m.play(1, {"pass": True})


def test_s12_s13_stacks_modifiers_and_interference():
    m = start(
        4,
        wallet_order=[0, 1, 2, 3],
        reveal_in_order=True,
        hands=[["3", "x2", "eliminate"], ["x2", "2"], ["x0", "1"], ["4", "x2"]],
    )
    with pytest.raises(IllegalAction, match="empty"):
        play(m, 0, "x2", 1)
    play(m, 0, "3", 1)
    play(m, 1, "x2", 1)
    play(m, 2, "1", 2)
    play(m, 3, "x2", 1)
    assert stack_values(m, 1) == [12]  # two x2 give x4
    play(m, 0, "eliminate", 2)
    assert stack_values(m, 2) == []
    play(m, 1, "2", 3)
    play(m, 2, "x0", 1)
    assert stack_values(m, 1) == [0]
    play(m, 3, "4", 3)
    assert stack_values(m, 3) == [2, 4]


def test_s14_empty_deck_reshuffles_discard():
    m = start(4)
    s = m.state
    s.power_discard.extend(s.power_deck)
    s.power_deck.clear()
    out = []
    refill.draw(s, out, random.Random(0), 0, 2)
    assert [e["type"] for e in out] == ["power_shuffled", "dealt"]
    assert out[0]["visible_to"] == [] and out[0]["payload"]["from_discard"] and not s.power_discard


def test_s15_palanque_copy_of_face_down_stays_hidden():
    m = start(
        4,
        round=2,
        aids=[None, "palanque", None, None],
        wallet_order=[0, 1, 2, 3],
        news_deck=["A03"],
        hands=[["4", "1"], ["1"], ["1"], ["1"]],
        reveal_in_order=True,
    )
    play(m, 0, "4", 0)
    m.play(1, {"aid": "palanque", "neighbour": 0})
    for seat in (1, 2, None):
        assert [e["value"] for e in RULES.observe(m.state, seat)["stacks"][1]] == [None]
    assert [e["value"] for e in RULES.observe(m.state, 0)["stacks"][1]] == [4]


def test_s16_colonel_card_drawn_after_passing_cannot_be_played():
    m = start(
        4,
        round=2,
        aids=[None, "colonel", None, None],
        money=[0, 500, 0, 0],
        wallet_order=[0, 1, 2, 3],
        hands=[["1", "1", "1"], ["1"], ["1"], ["1"]],
        reveal_in_order=True,
    )
    play(m, 0, "1", 0)
    m.play(1, {"pass": True})
    m.play(2, {"pass": True})
    play(m, 3, "1", 3)
    play(m, 0, "1", 0)
    m.play(1, {"aid": "colonel"})
    assert (
        m.state.aid_used["colonel"]
        and len(m.state.hands[1]) == 2
        and pending(m) == [(0, "dispute")]
    )
    with pytest.raises(IllegalAction):
        RULES.check(m.state, 1, {"play": m.state.hands[1][-1], "target": 1})


def test_s17_advertiser_protects_image_but_fury_moves():
    m = start(
        4,
        round=2,
        aids=["advertiser", None, None, None],
        wallet_order=[0, 1, 2, 3],
        news_deck=["A07"],
        hands=[["5"], ["1"], ["1"], ["1"]],
        reveal_in_order=True,
    )
    play(m, 0, "5", 0)
    play(m, 1, "1", 1)
    m.play(2, {"pass": True})
    m.play(3, {"pass": True})
    assert "A07" in m.state.piles[0] and m.state.image[0] == 0 and m.state.fury == 3
    s = start(4).state
    out = []
    aids.on_purchase(s, out, 2, "advertiser")
    assert s.image[2] == 1 and s.aid_used["advertiser"]


def test_s18_lawyer_cancels_the_news_just_attributed():
    m = lawyer_decision()
    m.play(0, {"lawyer": True})
    s = m.state
    assert "A01" not in s.piles[0] and "A01" in s.news_discard
    assert s.money[0] == 200 and s.image[0] == 0 and s.fury == 0


def test_s19_marketeer_gives_an_extra_vote():
    s = start(3).state
    aids.on_purchase(s, [], 1, "marketeer")
    assert s.piles[1] == ["EV1"] and scoring.votes(s, 1) == 4 and len(s.extra_votes) == 6


def test_s20_aids_return_at_round_end():
    m = full_game(seed=11)
    state = RULES.new_state()
    for ev in m.events:
        RULES.fold(state, ev)
        if ev["type"] == "round_ended":
            assert all(owner is None for owner in state.aid_owner.values())


def test_s21_sealed_all_pay_auction():
    m = start(4, round=2, wallet_order=[0, 1, 2, 3], money=[0, 100, 500, 500])
    assert pending(m) == [(0, "auction_choice")]  # the poorest chooses
    aid = m.state.shown_aids[0]
    m.play(0, {"choose_aid": aid})
    assert sorted(pending(m)) == [(0, "bid"), (1, "bid"), (2, "bid"), (3, "bid")]
    with pytest.raises(IllegalAction, match="cannot bid"):
        m.play(1, {"bid": 200})
    ev = m.play(2, {"bid": 300})
    assert ev[0]["visible_to"] == [2]
    assert RULES.observe(m.state, 3)["auction"]["my_bid"] is None
    m.play(0, {"bid": 0})
    m.play(1, {"bid": 100})
    ev = m.play(3, {"bid": 300})
    assert of_type(ev, "aid_bought")[0] == {"aid": aid, "seat": 2, "price": 300}
    assert m.state.money[:4] == [0, 0, 200, 200]
    assert pending(m) == [(0, "auction_choice")]
    m.play(0, {"choose_aid": m.state.shown_aids[0]})
    for seat in (0, 1, 3):
        ev = m.play(seat, {"bid": 0})
    assert of_type(ev, "aid_discarded")


def test_s22_all_zero_tie_chooser_among_all():
    m = start(3, wallet_order=[0, 1, 2], hands=[["1"], ["x0"], ["1"]], reveal_in_order=True)
    play(m, 0, "1", 0)
    play(m, 1, "x0", 0)
    ev = m.play(2, {"pass": True})
    assert of_type(ev, "tie")[0]["tied"] == [0, 1, 2]
    assert pending(m) == [(0, "destination")]
    m.play(0, {"give_to": 1})
    assert m.state.piles[1]


def test_s23_less_strategy_refills_earlier():
    hands = [["1"], ["1"], [], []]
    assert not of_type(start(4, hands=hands).events, "refill")
    assert of_type(start(4, options={"less_strategy": True}, hands=hands).events, "refill")


def test_s24_image_scale_configurable_and_capped():
    m = start(
        4,
        options={"image_max": 2},
        wallet_order=[0, 1, 2, 3],
        images=[-1, 0, 0, 0],
        news_deck=["A07"],
        hands=[["5"], ["1"], ["1"], ["1"]],
        reveal_in_order=True,
    )
    play(m, 0, "5", 0)
    play(m, 1, "1", 1)
    m.play(2, {"pass": True})
    m.play(3, {"pass": True})
    assert m.state.image[0] == -2


def test_s25_fury_overflow_is_lost():
    m = start(
        4,
        wallet_order=[0, 1, 2, 3],
        fury=9,
        news_deck=["A07"],
        hands=[["5"], ["1"], ["1"], ["1"]],
        reveal_in_order=True,
    )
    play(m, 0, "5", 0)
    play(m, 1, "1", 1)
    m.play(2, {"pass": True})
    ev = m.play(3, {"pass": True})
    assert [p["value"] for p in of_type(ev, "fury")] == [10, 0] and of_type(ev, "revolution")
    assert start(4, options={"fury_max": 4}).state.fury_max == 4


def test_s26_every_tied_worst_loses_a_green_card():
    m = start(
        4,
        wallet_order=[0, 1, 2, 3],
        fury=1,
        images=[-3, -3, 0, 0],
        piles=[["B01", "A01"], ["EV1"], ["B02"], []],
        news_deck=["R01", "A05", "A06", "A09", "B03"],
        reveal_in_order=True,
    )
    lost = of_type(m.events, "news_lost")
    assert lost == [{"seat": 0, "card": "B01"}, {"seat": 1, "card": "EV1"}]
    assert m.state.piles[2] == ["B02"]


def test_s28_black_news_values_hidden_until_everyone_passed():
    m = start(
        4,
        wallet_order=[0, 1, 2, 3],
        news_deck=["A03"],
        hands=[["5"], ["2"], ["1"], ["1"]],
        reveal_in_order=True,
    )
    ev = play(m, 0, "5", 0)
    assert ev[0]["visible_to"] == [0] and "value" not in (ev[0]["redacted"] or {})
    assert RULES.observe(m.state, 1)["stacks"][0][0]["value"] is None
    assert RULES.observe(m.state, 0)["stacks"][0][0]["value"] == 5
    play(m, 1, "2", 1)
    m.play(2, {"pass": True})
    ev = m.play(3, {"pass": True})
    assert of_type(ev, "faces_revealed")[0]["entries"][0][3] == 5
    assert of_type(ev, "news_attributed")[0]["seat"] == 0


def test_s29_s30_final_count_and_tie_break():
    m = start(3, wallet_order=[2, 1, 0], piles=[["B04"], ["A05", "B03"], []])
    result = scoring.final(m.state)
    assert result["votes"] == [1, 1, 3]
    assert result["ranks"] == [3, 2, 1]  # 0 and 1 tie on votes: wallet order puts 1 first


def test_s31_trading_binding_exchange():
    m = start(
        4,
        options={"trading": True},
        wallet_order=[0, 1, 2, 3],
        money=[300, 0, 0, 0],
        hands=[["5", "1"], ["2", "3"], ["1"], ["1"]],
        reveal_in_order=True,
    )
    five = m.state.hands[0][0]
    m.play(0, {"propose": {"to": 1, "cards": [five], "money": 100, "ask_cards": 1}})
    assert pending(m) == [(1, "trade_reply")]
    with pytest.raises(IllegalAction):
        m.play(1, {"accept": True, "cards": []})
    three = card(m, 1, "3")
    m.play(1, {"accept": True, "cards": [three]})
    assert (
        five in m.state.hands[1] and three in m.state.hands[0] and m.state.money[:2] == [200, 100]
    )
    with pytest.raises(IllegalAction, match="already"):
        m.play(0, {"propose": {"to": 2, "money": 100}})
    assert_replays(m)
    with pytest.raises(IllegalAction, match="not enabled"):
        start(4, hands=[["1"], ["1"], ["1"], ["1"]]).play(
            0, {"propose": {"to": 1, "money": 0, "ask_cards": 1}}
        )


def test_s33_media_control_pick_one_of_two():
    m = start(4, options={"media_control": True})
    assert pending(m) == [(m.state.chief, "media_pick")]
    offered = list(m.state.offered)
    assert len(offered) == 2 and len(m.state.pool) == 3
    assert RULES.observe(m.state, (m.state.chief + 1) % 4)["offered"] == []
    m.play(m.state.chief, {"reveal": offered[1]})
    assert m.state.news == offered[1] and offered[0] in m.state.pool


def test_s35_advertiser_at_heaven_and_hell_reset_without_draw():
    s = start(4, images=[5, 0, 0, 0]).state
    aids.on_purchase(s, [], 0, "advertiser")
    assert s.image[0] == 5
    m = start(
        4,
        images=[-5, 0, 0, 0],
        hands=[["1", "1", "1", "1", "1"], [], [], []],
        wallet_order=[0, 1, 2, 3],
    )
    refills = of_type(m.events, "refill")
    assert refills and m.state.image[0] == 0 and len(m.state.hands[0]) == 5
    assert [p["seat"] for p in of_type(m.events, "dealt")][-3:] == [1, 2, 3]


def test_options_rejected_with_clear_messages():
    with pytest.raises(BadOptions, match="unknown option"):
        RULES.options(4, {"bogus": 1})
    with pytest.raises(BadOptions, match="3 to 6"):
        RULES.options(2, {})
    with pytest.raises(BadOptions, match="true or false"):
        RULES.options(4, {"trading": "yes"})
    opts = RULES.options(4, None)
    assert (
        opts["less_strategy"] is False
        and opts["media_control"] is False
        and opts["trading"] is False
    )
    assert start(4, options={"trading": True}).events[0]["payload"]["options"]["trading"] is True


def _most_rounds(seats, media_control):
    per_round = seats + (1 if media_control else 0)
    return (46 - 1) // per_round  # 46 News cards, one kept for the REVOLUTION replacement


@pytest.mark.parametrize("media_control", [False, True])
@pytest.mark.parametrize("seats", [3, 4, 5, 6])
def test_s38_rounds_beyond_the_news_deck_are_rejected_at_setup(seats, media_control):
    # The limit is the news count's at every table: with 3 politicians it is 15, which a
    # fixed ceiling of 12 refused as "an integer from 1 to 12".
    most = _most_rounds(seats, media_control)
    options = {"media_control": media_control, "more_your_way": {"rounds": most}}
    assert RULES.options(seats, options)["more_your_way"]["rounds"] == most
    options["more_your_way"]["rounds"] = most + 1
    variant = " with Media Control" if media_control else ""
    refusal = rf"at most {most} rounds with {seats} politicians{variant} \(S-38\)"
    with pytest.raises(BadOptions, match=refusal):
        RULES.options(seats, options)
    with pytest.raises(BadOptions, match=refusal):
        start(seats, options=options)


@pytest.mark.parametrize("rounds", [13, 14, 15])
def test_s38_three_politicians_may_play_as_long_as_the_news_lasts(rounds):
    assert _most_rounds(3, False) == 15
    assert (
        RULES.options(3, {"more_your_way": {"rounds": rounds}})["more_your_way"]["rounds"] == rounds
    )
    # A scenario may start in any round the game has, and stage that round's auction.
    m = start(3, options={"more_your_way": {"rounds": rounds}}, round=rounds)
    assert m.state.round == rounds
    aids = {str(rounds): ["palanque", "lawyer"]}
    assert start(3, options={"more_your_way": {"rounds": rounds}}, auction_aids=aids)
    with pytest.raises(BadOptions, match=rf"from 1 to {rounds}, not {rounds + 1}"):
        start(3, options={"more_your_way": {"rounds": rounds}}, round=rounds + 1)


@pytest.mark.parametrize("rounds", [0, -1, 2.0, True, "8"])
def test_more_your_way_rounds_are_a_whole_number_from_1(rounds):
    with pytest.raises(BadOptions, match=r"'more_your_way\.rounds' must be a whole number from 1"):
        RULES.options(3, {"more_your_way": {"rounds": rounds}})


@pytest.mark.parametrize(("seats", "media_control"), [(3, False), (4, False), (6, True), (5, True)])
def test_s38_the_longest_allowed_game_finishes(seats, media_control):
    most = _most_rounds(seats, media_control)
    options = {"media_control": media_control, "more_your_way": {"rounds": most}}
    m = start(seats, 7, options)
    m.play_out([act] * seats, random.Random(7))
    assert m.outcome() is not None and m.state.round == most


def test_s38_scenario_piles_shrink_the_news_deck():
    piles = [["A01", "A02", "A03", "A04", "A05", "A06"], [], [], []]
    with pytest.raises(BadOptions, match="at most 9 rounds"):  # (40 - 1) // 4
        start(4, options={"more_your_way": {"rounds": 10}}, piles=piles)
    assert start(4, options={"more_your_way": {"rounds": 9}}, piles=piles).state.rounds == 9


def test_s37_a_hand_without_influence_cards_counts_as_empty_for_the_refill():
    hands = [["x0", "eliminate"], ["1"], ["x2"], ["reposition"]]
    m = start(4, wallet_order=[0, 1, 2, 3], hands=hands)
    assert of_type(m.events, "refill") == [{"holders": 1}]
    assert [len(h) for h in m.state.hands] == [5, 5, 5, 5]  # kept, then drawn up to the target
    assert all(c in m.state.hands[0] for c in m.state.options["scenario"]["hands"][0])


def test_s37_less_strategy_thresholds_count_influence_holders():
    hands = [["1"], ["1"], ["x0"], ["x2"]]
    assert not of_type(start(4, hands=hands).events, "refill")
    assert of_type(start(4, options={"less_strategy": True}, hands=hands).events, "refill")


def test_s37_c_counts_only_politicians_who_can_play_on_this_news_now():
    m = start(
        4, wallet_order=[0, 1, 2, 3], hands=[["1"], ["x0"], ["x2"], ["1"]], reveal_in_order=True
    )
    assert not of_type(m.events, "refill")
    with pytest.raises(IllegalAction, match="may not pass"):  # C = {0, 3}: 0 + 2 - 1 < 2
        m.play(0, {"pass": True})
    play(m, 0, "1", 0)
    m.play(1, {"pass": True})  # the x0 now has a target: C = {1, 2, 3}
    m.play(2, {"pass": True})
    with pytest.raises(IllegalAction, match="may not pass"):
        m.play(3, {"pass": True})


def test_s37_whole_games_open_every_dispute():
    """Measured before S-37: greedy politicians left 57% of disputes without any Power card."""
    power = {"card_played", "modifier_played", "eliminated", "repositioned"}
    for seed in range(10):
        m = start(4, seed)
        m.play_out([greedy.act] * 4, random.Random(seed))
        played: set[int] | None = None
        for ev in m.events:
            if ev["type"] == "news_revealed":
                played = set()
            elif ev["type"] == "news_removed":
                played = None
            elif ev["type"] in power and played is not None:
                played.add(ev["payload"]["seat"])
            elif ev["type"] == "dispute_cleared":
                assert played, (seed, ev)
