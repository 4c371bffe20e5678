"""bench sprt at its smallest size (``--quick``), and the twin measurement's pieces."""

from __future__ import annotations

import math
import random
from itertools import product
from typing import Any

import pytest

from tests.support.benches import bench_json
from tournaments.bench import twins
from tournaments.bench.twins import Deal
from tournaments.management.commands.bench import QUICK_PAIRS
from tournaments.rating.sprt import Finish, SequentialTest, Trinomial, elo, pair_outcome

# The quick run once, for this module and the docs' `bench sprt` (test_ab_tests_doc.py).
pytestmark = pytest.mark.xdist_group("bench-sprt-quick")


@pytest.fixture(scope="module")
def quick() -> dict[str, Any]:
    return bench_json("bench", "sprt", "--quick")


def _binomial_upper(p: float, n: int) -> float:
    """p plus four standard errors of a proportion over n: a bound a correct run stays under."""
    return p + 4 * math.sqrt(p * (1 - p) / n)


def test_the_simulated_error_rates_are_the_tests_own(quick: dict[str, Any]) -> None:
    n = quick["tests_per_point"]
    assert n == 200
    at0, at1 = quick["at_elo0"], quick["at_elo1"]
    assert at0["h0"] + at0["h1"] + at0["capped"] == n == at1["h0"] + at1["h1"] + at1["capped"]
    assert quick["type1_observed"] == at0["h1"] / n
    assert quick["type2_observed"] == at1["h0"] / n
    # Wald's bounds keep each error at or below its target; 200 tests leave this much noise.
    assert quick["type1_observed"] <= _binomial_upper(quick["alpha"], n)
    assert quick["type2_observed"] <= _binomial_upper(quick["beta"], n)
    # And the test does decide: nearly every run at elo0 says H0, at elo1 H1.
    assert at0["h0"] >= n * (1 - _binomial_upper(quick["alpha"], n))
    assert at1["h1"] >= n * (1 - _binomial_upper(quick["beta"], n))
    assert at0["capped"] == at1["capped"] == 0


def _wald_mean_pairs(test: SequentialTest, s: float, variance: float, accept_h1: float) -> float:
    """Wald's approximation of the pairs to a decision: the LLR drifts by
    (s - (s0 + s1) / 2)(s1 - s0) / var a pair and ends at a bound (no overshoot)."""
    drift = (s - (test.s0 + test.s1) / 2) * (test.s1 - test.s0) / variance
    return (accept_h1 * test.upper + (1 - accept_h1) * test.lower) / drift


def test_the_pairs_to_a_decision_are_walds_and_about_half_the_fixed_tests(
    quick: dict[str, Any],
) -> None:
    test = SequentialTest(quick["elo0"], quick["elo1"], quick["alpha"], quick["beta"])
    r = quick["draw_ratio"]
    # The fixed test, by hand: n = ((z_a sd0 + z_b sd1) / (s1 - s0))^2, var = s(1 - s) - r/4.
    z = 1.6448536269514722  # alpha = beta = 0.05
    sd0 = math.sqrt(test.s0 * (1 - test.s0) - r / 4)
    sd1 = math.sqrt(test.s1 * (1 - test.s1) - r / 4)
    fixed = (z * (sd0 + sd1) / (test.s1 - test.s0)) ** 2
    assert quick["fixed_pairs"] == pytest.approx(fixed, abs=0.1)
    for point, s, sd, h1 in (("elo0", test.s0, sd0, 0.05), ("elo1", test.s1, sd1, 0.95)):
        mean = quick[f"at_{point}"]["mean_pairs"]
        assert mean == pytest.approx(_wald_mean_pairs(test, s, sd * sd, h1), rel=0.2), point
        assert quick[f"pairs_ratio_at_{point}"] == pytest.approx(
            mean / quick["fixed_pairs"], abs=1e-3
        )
    assert quick["pairs_ratio_vs_fixed"] == max(
        quick["pairs_ratio_at_elo0"], quick["pairs_ratio_at_elo1"]
    )
    assert quick["pairs_ratio_vs_fixed"] <= 0.6


def _needed(distribution: dict[str, float]) -> float | None:
    """None where no pairs would do: no difference to detect (as the bench prints it)."""
    q = Trinomial(distribution["below"], distribution["equal"], distribution["above"])
    if abs(q.mean - 0.5) < 1e-9:
        return None
    return q.variance / (q.mean - 0.5) ** 2


def test_the_twins_ratio_is_what_their_outcomes_say(quick: dict[str, Any]) -> None:
    assert set(quick["duplicate"]) == {
        "brexit",
        "brexit:cautious:greedy",
        "brexit:cautious:bold",
        "brasilis",
        "brasilis:cautious:greedy",
        "brasilis:bold:cautious",
    }
    for game, figure in (
        ("brexit", "duplicate_pairs_ratio"),
        ("brasilis", "duplicate_pairs_ratio_brasilis"),
    ):
        measured = {k: v for k, v in quick["duplicate"].items() if v["game"] == game}
        name = quick["closest"][game]
        assert name == twins.closest(measured)
        assert quick[figure] == (None if name is None else measured[name]["ratio"])
    for game in quick["duplicate"].values():
        assert game["pairs"] == QUICK_PAIRS and game["statistic"] == twins.CHOSEN
        assert game["ratio"] == game["statistics"][twins.CHOSEN]["ratio"]
        for stat in game["statistics"].values():
            for design in ("duplicate", "independent"):
                shares = stat[design]
                assert shares["above"] + shares["equal"] + shares["below"] == pytest.approx(
                    1, abs=2e-4
                )
                needed = _needed(shares)
                assert stat[f"pairs_needed_{design}"] == (
                    None if needed is None else pytest.approx(needed, rel=1e-2)
                )
            if None not in (stat["pairs_needed_duplicate"], stat["pairs_needed_independent"]):
                assert stat["ratio"] == pytest.approx(
                    stat["pairs_needed_duplicate"] / stat["pairs_needed_independent"], rel=1e-2
                )
        # Twins open on the same deal, and part ways once the two versions decide differently.
        assert 0 < game["played_alike_median"] < 1
        low, high = game["ratio_ci95"]
        assert low is None or high is None or low <= high


def _pair(score: float, low: float, high: float) -> dict[str, Any]:
    return {"pair_score": score, "pair_score_ci95": [low, high], "elo": elo(score)}


def test_the_closest_pair_is_the_smallest_difference_among_those_that_differ() -> None:
    measured = {
        "far": _pair(0.9, 0.85, 0.95),
        "close": _pair(0.6, 0.55, 0.65),
        "close, the other way": _pair(0.42, 0.38, 0.46),  # the candidate is the weaker one
        "no difference shown": _pair(0.51, 0.45, 0.57),
        "none": _pair(0.5, 0.5, 0.5),
    }
    assert twins.closest(measured) == "close, the other way"  # 56 Elo, before 70
    assert twins.closest({k: measured[k] for k in ("far", "close")}) == "close"
    assert twins.closest({k: measured[k] for k in ("no difference shown", "none")}) is None


def test_a_pair_score_and_its_interval_are_the_deals_mean_and_normal_interval() -> None:
    found = twins.pair_score([1.0, 1.0, 0.5, 0.0])  # mean 0.625, sample sd 0.4787
    half = 1.959963984540054 * 0.4787135538781691 / 2
    assert found["pair_score"] == 0.625
    assert found["pair_score_ci95"] == [round(0.625 - half, 4), round(min(1.0, 0.625 + half), 4)]
    assert found["elo"] == round(elo(0.625), 1)
    assert found["elo_ci95"][1] is None  # the interval reaches 1: no finite upper Elo


def test_the_bench_counts_pairs_as_the_test_does(quick: dict[str, Any]) -> None:
    """The bench's chosen statistic is ``sprt.pair_outcome``: the deals it played, counted
    again through the test's own function, give its duplicate shares."""
    brexit = quick["duplicate"]["brexit"]
    deals = twins.play_deals(
        "brexit", brexit["candidate"], brexit["baseline"], brexit["field"], brexit["pairs"], 1
    )
    outcomes = [pair_outcome(d.candidate, d.twin) for d in deals]
    shares = brexit["statistics"][twins.CHOSEN]["duplicate"]
    for outcome in ("above", "equal", "below"):
        assert shares[outcome] == round(outcomes.count(outcome) / len(deals), 4)


def test_twins_play_the_same_deal_and_fresh_seeds_do_not() -> None:
    # The same bot twice on one seed plays the same game: every duplicate pair is equal.
    deals = twins.play_deals("brexit", "greedy", "greedy", ["random"] * 3, 8, seed=3)
    assert all(d.candidate == d.twin and d.shared == 1 for d in deals)
    shares = twins.compare(deals, resamples=0, seed=1)["statistics"][twins.CHOSEN]
    assert shares["duplicate"]["equal"] == 1
    assert shares["independent"]["equal"] < 0.5  # other deals, other games


def _brute_independent(deals: list[Deal], weights: list[int]) -> Trinomial:
    """Every copy of a candidate game against every copy of a baseline game of the same seat
    and another deal, listed one by one."""
    key = twins.STATISTICS[twins.CHOSEN]
    copies = [i for i, w in enumerate(weights) for _ in range(w)]
    counts = {"above": 0, "equal": 0, "below": 0}
    for i, j in product(copies, copies):
        if i != j and deals[i].seat == deals[j].seat:
            a, b = key(deals[i].candidate), key(deals[j].twin)
            counts["above" if a > b else "equal" if a == b else "below"] += 1
    total = sum(counts.values())
    return Trinomial(counts["below"] / total, counts["equal"] / total, counts["above"] / total)


def test_the_independent_design_counts_every_other_deal_of_the_seat_once() -> None:
    rng = random.Random(5)
    deals = [
        Deal(
            i % 2,
            Finish(rng.randint(1, 3), float(rng.randint(-2, 2))),
            Finish(rng.randint(1, 3), float(rng.randint(-2, 2))),
        )
        for i in range(14)
    ]
    key = twins.STATISTICS[twins.CHOSEN]
    for weights in ([1] * 14, [rng.randint(0, 3) for _ in range(14)]):
        found = twins._independent(deals, weights, key)
        assert found == pytest.approx(_brute_independent(deals, weights))


def test_pairs_needed_goes_as_variance_over_difference_squared() -> None:
    # (1/4, 1/2, 1/4) shifted to mean 0.6: wins 0.35, equal 0.5, losses 0.15.
    # var = 0.35 + 0.125 - 0.36 = 0.115; needed = 0.115 / 0.1^2 = 11.5.
    assert twins.pairs_needed(Trinomial(0.15, 0.5, 0.35)) == pytest.approx(11.5)
    assert twins.pairs_needed(Trinomial(0.25, 0.5, 0.25)) == math.inf
    assert twins.design_ratio(Trinomial(0.15, 0.5, 0.35), Trinomial(0.3, 0.0, 0.7)) == (
        pytest.approx(11.5 / (0.21 / 0.04))
    )
