"""Scenario set-up reaches rulebook situations directly: the aids at an auction, the money
before the salaries (scenario options); scenario options stay hidden until the end."""

from __future__ import annotations

import json
import random

import pytest

from games.brasilis.bots.random_legal import act
from games.brasilis.rules import RULES
from games.engine.errors import BadOptions
from games.engine.events import view

from .helpers import of_type, start


def test_auction_aids_fix_the_aids_shown_at_that_rounds_auction():
    m = start(4, 3, round=2, auction_aids={"2": ["palanque", "lawyer", "colonel"]})
    assert of_type(m.events, "aids_drawn") == [{"aids": ["palanque", "lawyer", "colonel"]}]


def test_auction_aids_for_a_later_round():
    m = start(3, 5, auction_aids={"3": ["advertiser", "marketeer"]})
    m.play_out([act] * 3, random.Random(5))
    drawn = of_type(m.events, "aids_drawn")
    assert len(drawn) == 7 and drawn[1] == {"aids": ["advertiser", "marketeer"]}  # rounds 2..8


@pytest.mark.parametrize(
    "aids",
    [
        {"2": ["lawyer", "lawyer", "colonel"]},
        {"2": ["lawyer", "colonel"]},
        {"2": ["lawyer", "colonel", "senator"]},
        {"1": ["lawyer", "colonel", "palanque"]},
        {"x": ["lawyer", "colonel", "palanque"]},
        ["lawyer", "colonel", "palanque"],
    ],
)
def test_auction_aids_must_be_x_minus_1_distinct_aids_per_auction_round(aids):
    with pytest.raises(BadOptions, match="auction_aids"):
        start(4, auction_aids=aids)


def test_money_before_salary_puts_the_bank_short_for_the_salaries():
    """S-7 and S-8 at the start of a round: the bank holds $300 when salaries are due."""
    m = start(3, wallet_order=[2, 0, 1], money_before_salary=[2000, 2000, 1700])
    salaries = [p for p in of_type(m.events, "paid") if p["reason"] in ("salary", "cpmv")]
    assert salaries == [
        {"from": None, "to": 2, "amount": 300, "reason": "salary"},  # the Chief first, bank empty
        {"from": 1, "to": 0, "amount": 300, "reason": "cpmv"},  # 1 and 2 tie at $2,000: 1 suffers
        {"from": 0, "to": 1, "amount": 300, "reason": "cpmv"},  # 0 is now the richest other
    ]
    assert m.state.money == [2000, 2000, 2000] and m.state.bank == 0


def test_money_before_salary_is_checked_like_money():
    with pytest.raises(BadOptions, match="money_before_salary"):
        start(3, money_before_salary=[5000, 1000, 100])
    with pytest.raises(BadOptions, match="money_before_salary"):
        start(3, money_before_salary=[150, 0, 0])


def test_new_scenario_options_stay_hidden_until_the_end():
    m = start(
        4,
        2,
        round=2,
        auction_aids={
            "2": ["palanque", "lawyer", "colonel"],
            "3": ["advertiser", "lawyer", "colonel"],
        },
        money_before_salary=[100, 200, 300, 400],
    )
    for seat in (0, 1, 2, 3, None):
        seen = json.dumps([view(ev, seat) for ev in m.events]) + json.dumps(
            RULES.observe(m.state, seat)
        )
        assert "auction_aids" not in seen and "money_before_salary" not in seen
    assert of_type(m.events, "aids_drawn") == [{"aids": ["palanque", "lawyer", "colonel"]}]
