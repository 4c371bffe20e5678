"""E-S1..E-S11 (the rulebook's worked examples) as acceptance tests, following each action log step by step."""

from __future__ import annotations

import pytest

from games.brasilis.cards import NEWS, POWER_KIND
from games.brasilis.rules import RULES
from games.brasilis.scoring import votes
from games.engine.errors import IllegalAction

from .helpers import assert_replays, of_type, pending, play, stack_values, start, types

OSE, JOA, ANA, TIAO = 0, 1, 2, 3  # Oséias, Joaquim, Ana, Tião


def example_of_play():
    return start(
        4,
        wallet_order=[OSE, JOA, ANA, TIAO],
        hands=[["2", "2", "2"], ["4"], ["3", "1", "2"], ["3", "1"]],
        images=[0, 0, 1, -5],
        money=[300, 300, 100, 300],
        news_deck=["C01"],
        reveal_in_order=True,
    )


def test_e_s1_example_of_play():
    m = example_of_play()
    assert m.state.news == "C01" and pending(m) == [(OSE, "dispute")]
    play(m, OSE, "2", OSE)
    assert stack_values(m, OSE) == [2]
    m.play(JOA, {"pass": True})  # U={OSE}, C={JOA,ANA,TIAO}: 1 + 3 - 1 = 3 >= 2
    play(m, ANA, "3", ANA)
    play(m, TIAO, "3", TIAO)
    play(m, OSE, "2", OSE)
    assert pending(m) == [(ANA, "dispute")]  # Joaquim is skipped: passed, no aid
    play(m, ANA, "1", ANA)
    m.play(TIAO, {"pass": True})
    play(m, OSE, "2", OSE)
    ev = play(m, ANA, "2", ANA)
    autos = [p["seat"] for p in of_type(ev, "passed") if p["auto"]]
    assert autos == [OSE, ANA]
    tie = of_type(ev, "tie")[0]
    assert tie["totals"] == [6, 0, 6, 3] and tie["tied"] == [OSE, ANA] and tie["chooser"] == ANA
    assert pending(m) == [(ANA, "destination")]
    with pytest.raises(IllegalAction):
        m.play(ANA, {"give_to": TIAO})  # S-34: only among the tied
    m.play(ANA, {"give_to": ANA})
    s = m.state
    assert s.image[ANA] == 0 and s.fury == 1 and s.money[ANA] == 0
    assert "C01" in s.piles[ANA]
    assert len(s.power_discard) == 7
    assert s.revealer == JOA and not of_type(m.events, "refill")
    assert sum(s.money) + s.bank == 6000
    assert_replays(m)


def test_e_s2_hell_keeps_image_but_fury_moves():
    m = start(
        4,
        wallet_order=[0, 1, 2, 3],
        hands=[["5"], ["1"], ["1"], ["1"]],
        images=[-5, 0, 0, 0],
        money=[100, 0, 0, 0],
        news_deck=["C01"],
        reveal_in_order=True,
    )
    play(m, 0, "5", 0)
    play(m, 1, "1", 1)
    m.play(2, {"pass": True})
    m.play(3, {"pass": True})
    s = m.state
    assert "C01" in s.piles[0] and s.image[0] == -5 and s.fury == 1 and s.money[0] == 0


def test_e_s2_heaven_gain_moves_nothing():
    m = start(
        4,
        wallet_order=[0, 1, 2, 3],
        hands=[["5"], ["1"], ["1"], ["1"]],
        images=[5, 0, 0, 0],
        fury=4,
        news_deck=["B04"],
        reveal_in_order=True,
    )
    play(m, 0, "5", 0)
    play(m, 1, "1", 1)
    m.play(2, {"pass": True})
    m.play(3, {"pass": True})
    assert "B04" in m.state.piles[0] and m.state.image[0] == 5 and m.state.fury == 4


def test_e_s3_replenishment_example():
    Ana, Moa, Ose, Jul = 0, 1, 2, 3
    m = start(
        4,
        wallet_order=[Ana, Moa, Ose, Jul],
        hands=[[], ["2", "1", "1"], ["2", "reposition"], ["3"]],
        images=[-5, 0, 0, 0],
        money=[300, 300, 300, 0],
        news_deck=["A02"],
        reveal_in_order=True,
    )
    assert m.state.news == "A02" and not of_type(m.events, "refill")
    assert {"seat": Ana, "auto": True} in of_type(m.events, "passed")
    play(m, Moa, "2", Ana)
    play(m, Ose, "2", Jul)
    play(m, Jul, "3", Ose)
    assert pending(m) == [(Moa, "dispute")]  # Ana is skipped
    m.play(Moa, {"pass": True})
    with pytest.raises(IllegalAction, match="yourself"):
        play(m, Ose, "reposition", Ose, destination=Ose)  # E-S8
    ev = play(m, Ose, "reposition", Ose, destination=Jul)
    assert [p["seat"] for p in of_type(ev, "passed")] == [Jul, Ose]
    attributed = of_type(ev, "news_attributed")[0]
    assert attributed["seat"] == Jul and attributed["totals"] == [2, 0, 0, 5]
    s = m.state
    assert s.money[Jul] == 300 and s.fury == 2 and "A02" in s.piles[Jul]
    # The refill before Moacir's reveal: only Moacir held cards.
    assert of_type(ev, "refill") == [{"holders": 1}]
    dealt = [(p["seat"], len(p["cards"])) for p in of_type(ev, "dealt")]
    assert dealt == [(Moa, 3), (Ose, 5), (Jul, 5), (Ana, 4)]
    assert [len(h) for h in s.hands] == [4, 5, 5, 5]
    assert s.image == [0, 0, 0, -2]  # Ana reset from HELL, Julinho keeps -2
    assert s.power_discard.count(card_of(s, "reposition")) == 1 and len(s.power_discard) == 4
    assert_replays(m)


def card_of(s, kind):
    return next(c for c in s.power_discard if POWER_KIND[c] == kind)


def test_e_s4_sample_news_counts_minus_three():
    assert (NEWS["A01"].image, NEWS["A01"].money, NEWS["A01"].votes) == (-2, 300, -3)
    m = start(3, piles=[["A01"], ["B04"], []])
    assert votes(m.state, 0) == -3 and votes(m.state, 1) == 1


def test_e_s5_at_least_two_five_players():
    m = start(
        5,
        wallet_order=[0, 1, 2, 3, 4],
        hands=[["1"], ["1"], ["1"], ["1"], ["1"]],
        reveal_in_order=True,
    )
    for seat in (0, 1, 2):
        m.play(seat, {"pass": True})
    with pytest.raises(IllegalAction, match="S-11"):
        m.play(3, {"pass": True})
    assert {"pass": True} not in (RULES.legal(m.state, 3)["actions"] or [])
    play(m, 3, "1", 3)
    with pytest.raises(IllegalAction, match="S-11"):
        m.play(4, {"pass": True})
    play(m, 4, "1", 4)


def test_e_s5_variant_players_without_cards():
    m = start(
        4, wallet_order=[0, 1, 2, 3], hands=[["1", "1"], [], [], ["1", "1"]], reveal_in_order=True
    )
    with pytest.raises(IllegalAction, match="S-11"):
        m.play(0, {"pass": True})
    play(m, 0, "1", 0)
    with pytest.raises(IllegalAction, match="S-11"):
        m.play(3, {"pass": True})


@pytest.mark.parametrize(("seats", "rounds", "hand"), [(3, 8, 5), (4, 6, 5), (5, 5, 5), (6, 4, 6)])
def test_e_s6_pizza_and_game_length(seats, rounds, hand):
    import random

    from games.brasilis.bots.random_legal import act

    m = start(seats, seed=seats)
    assert [len(h) for h in m.state.hands] == [hand] * seats
    salaries = [p for p in of_type(m.events, "paid") if p["reason"] == "salary"]
    chief = m.state.chief
    assert [p["to"] for p in salaries] == [(chief + i) % seats for i in range(seats)]
    assert all(p["amount"] == 300 for p in salaries)
    m.play_out([act] * seats, random.Random(seats))
    assert len(of_type(m.events, "round_started")) == rounds
    assert len(of_type(m.events, "dispute_cleared")) == seats * rounds
    drawn = of_type(m.events, "aids_drawn")
    assert len(drawn) == rounds - 1 and all(len(d["aids"]) == seats - 1 for d in drawn)
    first_auction_round = next(
        r["round"]
        for r, nxt in zip(of_type(m.events, "round_started"), [None] * rounds, strict=True)
        if r["round"] == 2
    )
    assert first_auction_round == 2
    assert "aids_drawn" not in types(
        m.events[
            : m.events.index(
                next(
                    e
                    for e in m.events
                    if e["type"] == "round_started" and e["payload"]["round"] == 2
                )
            )
        ]
    )


def test_e_s7_no_news_scores_three_plus_extra_votes():
    m = start(3, piles=[[], ["EV1"], ["EV2", "B04"]])
    assert votes(m.state, 0) == 3 and votes(m.state, 1) == 4 and votes(m.state, 2) == 2


def test_e_s8_reposition_away_from_self_is_legal():
    m = start(
        4,
        wallet_order=[0, 1, 2, 3],
        hands=[["2"], ["reposition", "1"], ["1"], ["1"]],
        reveal_in_order=True,
    )
    play(m, 0, "2", 1)
    with pytest.raises(IllegalAction, match="yourself"):
        play(m, 1, "reposition", 1, destination=1)
    play(m, 1, "reposition", 1, destination=3)
    assert stack_values(m, 1) == [] and stack_values(m, 3) == [2]


def palanque_match():
    return start(
        4,
        round=2,
        wallet_order=[0, 1, 2, 3],
        aids=[None, "palanque", None, None],
        hands=[["4", "1"], ["1", "1"], ["x0", "x2", "eliminate", "reposition", "1"], ["1"]],
        reveal_in_order=True,
    )


def test_e_s9_palanque():
    m = palanque_match()
    play(m, 0, "1", 2)
    with pytest.raises(IllegalAction, match="S-15"):
        m.play(1, {"aid": "palanque", "neighbour": 0})  # nothing in front of seat 0
    with pytest.raises(IllegalAction, match="not seated next to you"):
        m.play(1, {"aid": "palanque", "neighbour": 3})
    play(m, 1, "1", 1)
    play(m, 2, "1", 2)
    play(m, 3, "1", 3)
    play(m, 0, "4", 0)
    assert {"aid": "palanque", "neighbour": 0} in (RULES.legal(m.state, 1)["actions"] or [])
    m.play(1, {"aid": "palanque", "neighbour": 0})
    assert stack_values(m, 1) == [1, 4]  # the copy is worth 4
    for kind in ("x0", "x2", "eliminate"):
        for target in (0, 1):
            with pytest.raises(IllegalAction, match="locked"):
                play(m, 2, kind, target)
    with pytest.raises(IllegalAction, match="locked"):
        play(m, 2, "reposition", 0, destination=3)
    assert m.state.aid_used["palanque"]


def test_e_s10_lawyer_not_for_earlier_news():
    m = start(
        4,
        round=2,
        wallet_order=[0, 1, 2, 3],
        aids=["lawyer", None, None, None],
        piles=[["A01"], [], [], []],
        money=[500, 0, 0, 0],
        hands=[["1"], ["1"], ["1"], ["1"]],
        reveal_in_order=True,
    )
    with pytest.raises(IllegalAction, match="S-18"):
        m.play(0, {"aid": "lawyer"})
    with pytest.raises(IllegalAction):
        m.play(0, {"lawyer": True})


def test_e_s11_immediate_revolution():
    m = start(
        4,
        wallet_order=[0, 1, 2, 3],
        fury=3,
        images=[-2, -2, 0, 1],
        piles=[["B01", "A05"], ["A06"], ["B02"], []],
        news_deck=["R01", "A07", "A08", "A09", "B03"],
        reveal_in_order=True,
    )
    rev = of_type(m.events, "revolution")
    assert rev and rev[0]["worst"] == [0, 1] and rev[0]["cause"] == "card"
    lost = of_type(m.events, "news_lost")
    assert [p["seat"] for p in lost] == [0] and lost[0]["card"] == "B01"  # seat 1 has no green card
    s = m.state
    assert s.fury == 0 and "R01" in s.removed and s.news == "B03" and s.revealer == 0
    revealed = of_type(m.events, "news_revealed")
    assert revealed[-1] == {"news": "B03", "revealer": 0, "source": "deck"}
    assert len(s.pool) == 3  # the replacement came from the pile, not the set-aside pool
    assert_replays(m)
