"""The sequential A/B test's arithmetic (tournaments/rating/sprt.py, docs/ab-tests.md)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.rating.sprt import (
    Counts,
    Estimate,
    Finish,
    SequentialTest,
    Trinomial,
    Verdict,
    constrained_mle,
    deviance,
    elo,
    estimate,
    finish,
    log_likelihood,
    pair_outcome,
    score,
    trinomial,
)

# H1 at the Elo whose expected pair score is exactly 3/4: 10 ** (-elo / 400) = 1/3.
THREE_QUARTERS = 400 * math.log10(3)


def test_the_elo_scale_is_logistic() -> None:
    assert score(0) == 0.5
    assert score(THREE_QUARTERS) == pytest.approx(0.75, abs=1e-15)
    assert score(-400) == pytest.approx(1 / 11)  # 1 / (1 + 10)
    assert elo(0.75) == pytest.approx(THREE_QUARTERS)
    assert elo(0.0) == -math.inf and elo(1.0) == math.inf
    assert score(-200_000) == 0.0 and score(200_000) == 1.0  # no overflow either way
    assert score(-100) == pytest.approx(1 - score(100), abs=1e-15)


def test_llr_by_hand_without_equal_pairs() -> None:
    # No equal pair: the most likely trinomial of mean s has d = 0, i.e. (1 - s, 0, s).
    # 1 loss, 3 wins: LLR = 3 ln(0.75 / 0.5) + 1 ln(0.25 / 0.5) = ln(3.375 / 2) = ln(27 / 16).
    test = SequentialTest(0, THREE_QUARTERS)
    assert test.llr(Counts(losses=1, draws=0, wins=3)) == pytest.approx(math.log(27 / 16))
    assert constrained_mle(Counts(1, 0, 3), 0.75) == pytest.approx((0.25, 0.0, 0.75))


def test_llr_by_hand_with_only_equal_pairs() -> None:
    # 5 equal pairs. Mean 1/2 is the observation itself: q0 = (0, 1, 0). Mean 3/4 keeps as
    # many equal pairs as it can, d = 2 min(s, 1 - s) = 1/2, the rest wins: q1 = (0, 1/2, 1/2).
    # LLR = 5 ln(0.5 / 1) = -5 ln 2.
    counts = Counts(0, 5, 0)
    assert constrained_mle(counts, 0.5) == pytest.approx((0.0, 1.0, 0.0))
    assert constrained_mle(counts, 0.75) == pytest.approx((0.0, 0.5, 0.5))
    assert SequentialTest(0, THREE_QUARTERS).llr(counts) == pytest.approx(-5 * math.log(2))


def test_llr_by_hand_with_all_three_outcomes() -> None:
    # 1 loss, 2 equal, 1 win: mean 1/2, so q0 is the observation, (1/4, 1/2, 1/4).
    # At s = 3/4: u = 2(1 - s) = 1/2, v = 2s = 3/2, b = 2 pd + pl v + pw u = 1 + 3/8 + 1/8 = 3/2,
    # pd u v = 3/8, d = (b - sqrt(b^2 - 4 pd u v)) / 2 = (3/2 - sqrt(3/4)) / 2 = (3 - sqrt 3) / 4,
    # q1 = (1 - s - d/2, d, s - d/2) = ((sqrt 3 - 1) / 8, (3 - sqrt 3) / 4, (3 + sqrt 3) / 8).
    r3 = math.sqrt(3)
    q1 = constrained_mle(Counts(1, 2, 1), 0.75)
    assert q1 == pytest.approx(((r3 - 1) / 8, (3 - r3) / 4, (3 + r3) / 8))
    # LLR = ln(q1L / (1/4)) + 2 ln(q1D / (1/2)) + ln(q1W / (1/4))
    #     = ln((sqrt 3 - 1) / 2) + 2 ln((3 - sqrt 3) / 2) + ln((3 + sqrt 3) / 2)
    #     = ln(1.5 (sqrt 3 - 1)(3 - sqrt 3) / 4) = ln(1.5 sqrt 3 - 2.25)   [(3-r3)(3+r3) = 6]
    assert SequentialTest(0, THREE_QUARTERS).llr(Counts(1, 2, 1)) == pytest.approx(
        math.log(1.5 * r3 - 2.25)
    )


def test_bounds_are_walds() -> None:
    test = SequentialTest(0, 5, alpha=0.05, beta=0.05)
    assert test.lower == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944, abs=1e-3)
    assert test.upper == pytest.approx(math.log(0.95 / 0.05)) == pytest.approx(2.944, abs=1e-3)
    skewed = SequentialTest(0, 5, alpha=0.01, beta=0.2)
    assert skewed.lower == pytest.approx(math.log(0.2 / 0.99))
    assert skewed.upper == pytest.approx(math.log(0.8 / 0.01))


def _fishtest_llr(counts: Counts, elo0: float, elo1: float) -> float:
    """fishtest's LLR_logistic (server/fishtest/stats/LLRcalc.py), ported: zero counts replaced
    by 0.001, then the constrained estimate from its secular equation
    sum_i p_i a_i / (1 + x a_i) = 0 (a_i = value_i - s), here solved by bisection where
    fishtest calls scipy's brentq."""
    results = [c if c else 1e-3 for c in counts]
    n = sum(results)
    pdf = [(i / 2, r / n) for i, r in enumerate(results)]

    def mle(s: float) -> list[float]:
        shifted = [(a - s, p) for a, p in pdf]
        lo = -1 / max(a for a, _ in shifted) + 1e-12
        hi = -1 / min(a for a, _ in shifted) - 1e-12
        for _ in range(200):
            x = (lo + hi) / 2
            if sum(p * a / (1 + x * a) for a, p in shifted) > 0:
                lo = x
            else:
                hi = x
        return [p / (1 + x * a) for a, p in shifted]

    q0, q1 = mle(score(elo0)), mle(score(elo1))
    return n * sum(
        p * (math.log(b) - math.log(a)) for (_, p), a, b in zip(pdf, q0, q1, strict=True)
    )


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1"),
    [
        (Counts(30, 50, 40), 0, 5),
        (Counts(1200, 300, 1330), 0, 10),
        (Counts(7, 1, 2), -10, 30),
        (Counts(400, 4000, 380), 0, 2),
    ],
)
def test_llr_equals_fishtests_where_every_outcome_was_seen(
    counts: Counts, elo0: float, elo1: float
) -> None:
    assert SequentialTest(elo0, elo1).llr(counts) == pytest.approx(
        _fishtest_llr(counts, elo0, elo1), abs=1e-8
    )


def test_fishtests_regularized_llr_tends_to_the_exact_one_for_zero_counts() -> None:
    # fishtest puts 0.001 where a count is 0: a nearby, not the exact, likelihood.
    for counts in (Counts(0, 10, 25), Counts(12, 0, 20), Counts(0, 9, 0)):
        exact = SequentialTest(0, 20).llr(counts)
        assert _fishtest_llr(counts, 0, 20) == pytest.approx(exact, abs=0.02), counts


counts_strategy = st.builds(
    Counts,
    st.integers(0, 2000),
    st.integers(0, 2000),
    st.integers(0, 2000),
).filter(lambda c: c.pairs > 0)
scores = st.floats(0.01, 0.99)


@given(counts_strategy, scores)
def test_the_constrained_estimate_has_mean_s_and_no_trinomial_of_mean_s_is_likelier(
    counts: Counts, s: float
) -> None:
    q = constrained_mle(counts, s)
    assert min(q) >= 0
    assert sum(q) == pytest.approx(1, abs=1e-12)
    assert q.mean == pytest.approx(s, abs=1e-12)
    best = log_likelihood(counts, q)
    assert best > -math.inf  # every outcome seen keeps some mass
    top = 2 * min(s, 1 - s)
    for i in range(401):  # the whole one-parameter family, d from 0 to its largest
        d = top * i / 400
        other = Trinomial(max(0.0, 1 - s - d / 2), d, max(0.0, s - d / 2))
        assert log_likelihood(counts, other) <= best + 1e-9 * max(1.0, abs(best))


elos = st.floats(-200, 200)


@given(counts_strategy, elos, st.floats(0.5, 100))
def test_the_fast_llr_is_the_likelihood_ratio_of_the_two_estimates(
    counts: Counts, elo0: float, width: float
) -> None:
    test = SequentialTest(elo0, elo0 + width)
    slow = log_likelihood(counts, constrained_mle(counts, test.s1)) - log_likelihood(
        counts, constrained_mle(counts, test.s0)
    )
    assert test.llr(counts) == pytest.approx(slow, rel=1e-9, abs=1e-9)


@given(counts_strategy, elos, st.floats(0.5, 100))
def test_llr_grows_with_wins_and_falls_with_losses(
    counts: Counts, elo0: float, width: float
) -> None:
    test = SequentialTest(elo0, elo0 + width)
    llr = test.llr(counts)
    tolerance = 1e-9 * max(1.0, abs(llr))
    assert test.llr(counts.add("above")) >= llr - tolerance
    assert test.llr(counts.add("below")) <= llr + tolerance


@given(st.integers(0, 500), st.integers(0, 500), st.floats(0.5, 200))
def test_llr_is_zero_where_the_evidence_favours_neither(
    wins_and_losses: int, draws: int, half_width: float
) -> None:
    # Hypotheses symmetric about 0 and counts symmetric about 1/2: no evidence either way.
    counts = Counts(wins_and_losses, draws, wins_and_losses)
    assert SequentialTest(-half_width, half_width).llr(counts) == pytest.approx(0, abs=1e-9)
    assert SequentialTest(0, 10).llr(Counts()) == 0  # no pairs yet


@given(st.floats(0.001, 0.49), st.floats(0.001, 0.49))
def test_bounds_lie_either_side_of_zero(alpha: float, beta: float) -> None:
    test = SequentialTest(0, 5, alpha=alpha, beta=beta)
    assert test.lower < 0 < test.upper


def test_verdict_stops_at_the_first_bound_crossed_then_at_the_cap() -> None:
    test = SequentialTest(0, THREE_QUARTERS, alpha=0.05, beta=0.05, max_pairs=12)
    # Each win alone adds ln(0.75 / 0.5) = 0.405: 8 wins make 3.24 >= upper 2.944, 7 make 2.84.
    assert test.verdict(Counts(0, 0, 7)) is Verdict.CONTINUE
    assert test.verdict(Counts(0, 0, 8)) is Verdict.H1
    # Each loss alone adds ln(0.25 / 0.5) = -0.693: 5 losses make -3.47 <= lower -2.944.
    assert test.verdict(Counts(4, 0, 0)) is Verdict.CONTINUE
    assert test.verdict(Counts(5, 0, 0)) is Verdict.H0
    assert test.verdict(Counts(6, 0, 6)) is Verdict.CAP  # 6 ln 0.75 = -1.73: undecided at the cap
    assert test.verdict(Counts(12, 0, 0)) is Verdict.H0  # a bound crossed counts, cap or not


@pytest.mark.parametrize(
    "bad",
    [
        {"elo0": 5, "elo1": 5},
        {"elo0": 5, "elo1": 0},
        {"elo0": 0, "elo1": 5, "alpha": 0},
        {"elo0": 0, "elo1": 5, "alpha": 0.6, "beta": 0.5},
        {"elo0": 0, "elo1": 5, "max_pairs": 0},
        {"elo0": 0, "elo1": 10_000},  # a pair score of 1.0 in floating point
        {"elo0": -200_000, "elo1": 0},  # 0.0
    ],
)
def test_a_test_that_cannot_decide_is_refused(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        SequentialTest(**bad)  # type: ignore[arg-type]


def test_the_fixed_size_test_by_hand() -> None:
    # alpha = beta = 0.05: z = 1.6449. Without equal pairs sd = sqrt(s (1 - s)):
    # s0 = 1/2, sd0 = 1/2; s1 = 3/4, sd1 = sqrt(3)/4.
    # n = ((1.6449 * 0.5 + 1.6449 * 0.4330) / 0.25)^2 = (1.6449 * 0.9330 / 0.25)^2 = 37.68.
    z = 1.6448536269514722
    expected = (z * (0.5 + math.sqrt(3) / 4) / 0.25) ** 2
    assert SequentialTest(0, THREE_QUARTERS).fixed_pairs(0.0) == pytest.approx(expected)
    assert expected == pytest.approx(37.68, abs=0.01)
    # Equal pairs take variance away: var = s (1 - s) - r / 4.
    assert trinomial(0.5, 0.4).variance == pytest.approx(0.25 - 0.1)
    with pytest.raises(ValueError):
        trinomial(0.9, 0.4)  # wins would be 0.9 - 0.2 and losses 0.1 - 0.2 < 0


def test_estimate_by_hand() -> None:
    assert estimate(Counts()) is None
    # 3 wins out of 3: Elo infinite, and the lower end is where 2 ln(1 / s^3) = 1.96^2,
    # s = exp(-1.96^2 / 6) = 0.527, about 18.9 Elo.
    three = estimate(Counts(0, 0, 3))
    assert three is not None
    assert three.elo == math.inf and three.high == math.inf
    assert three.low == pytest.approx(elo(math.exp(-(1.959963984540054**2) / 6)), abs=1e-6)
    assert 18 < three.low < 20


@given(counts_strategy)
def test_the_interval_holds_the_estimate_and_the_deviance_at_its_ends_is_z_squared(
    counts: Counts,
) -> None:
    found = estimate(counts)
    assert isinstance(found, Estimate)
    assert found.low <= found.elo <= found.high
    for end in (found.low, found.high):
        if math.isfinite(end):
            assert deviance(counts, score(end)) == pytest.approx(1.959963984540054**2, rel=1e-6)


def test_for_many_pairs_the_interval_is_the_normal_one() -> None:
    counts = Counts(3000, 1500, 3500)
    found = estimate(counts)
    assert found is not None
    mean = counts.mean
    sd = math.sqrt((counts.wins + counts.draws / 4) / counts.pairs - mean * mean)
    half = 1.959963984540054 * sd / math.sqrt(counts.pairs)
    assert found.low == pytest.approx(elo(mean - half), abs=0.2)
    assert found.high == pytest.approx(elo(mean + half), abs=0.2)


def test_pair_outcome_compares_ranks_then_margins() -> None:
    assert pair_outcome(Finish(1, -3.0), Finish(2, 10.0)) == "above"  # a better place wins
    assert pair_outcome(Finish(3, 9.0), Finish(2, -1.0)) == "below"
    assert pair_outcome(Finish(2, 4.0), Finish(2, 1.5)) == "above"  # same place: the margin
    assert pair_outcome(Finish(2, 1.5), Finish(2, 4.0)) == "below"
    assert pair_outcome(Finish(2, 1.5), Finish(2, 1.5)) == "equal"
    # The margin is over the mean of the other seats: 10 - (4 + 6 + 8) / 3 = 4.
    assert finish([1, 3, 2, 4], [10.0, 4.0, 6.0, 8.0], 0) == Finish(1, 4.0)
    assert Counts().add("above").add("equal").add("below").add("above") == Counts(1, 1, 2)
