"""The sequential A/B test of a candidate against a baseline on duplicate deals: pure math.

A **pair** is one deal played twice, once with the candidate in a seat and once with the
baseline in the same seat, against the same field, on the same seed. Its outcome is
trinomial: the candidate finished **above** its twin (scores 1), **equal** (1/2) or
**below** (0); ``pair_outcome`` says which, by rank first and, for equal ranks, by the score
margin over the field (docs/ab-tests.md says why). The counts of the three outcomes are all
the test reads.

The test is the generalized sequential probability ratio test (GSPRT) that fishtest runs on
chess engines (official-stockfish/fishtest, ``server/fishtest/stats/LLRcalc.py`` and
``stat_util.py``): H0 says the candidate's expected pair score is ``s0 = L(elo0)``, H1 says
``s1 = L(elo1)``, ``L(elo) = 1 / (1 + 10 ** (-elo / 400))`` (logistic Elo). Neither
hypothesis fixes the share of equal pairs, so each is represented by the trinomial
distribution of its mean score that is most likely given the counts (the constrained maximum
likelihood estimate, ``constrained_mle``), and

    LLR = N * sum_i p_i * log(q1_i / q0_i)

where ``p`` is the observed distribution and ``q0``, ``q1`` the two estimates. After each
pair the test stops at the first bound crossed (Wald's): ``log(beta / (1 - alpha))`` accepts
H0, ``log((1 - beta) / alpha)`` accepts H1; at ``max_pairs`` without either it stops capped.

fishtest finds the constrained estimate by a numerical root search on a Lagrange multiplier
(its ``secular`` equation) and replaces zero counts by 0.001 first. With three outcomes the
problem has one free parameter, the probability ``d`` of an equal pair, and its optimum is
the smaller root of a quadratic (``constrained_mle``): exact, and exact for zero counts too,
where the estimate may put mass on an outcome never seen.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from statistics import NormalDist
from typing import Literal, NamedTuple

PairOutcome = Literal["above", "equal", "below"]
"""How the candidate finished against its twin, the baseline in its seat on the same deal."""

Z95 = NormalDist().inv_cdf(0.975)
"""The two-sided 95% quantile of the standard normal."""


def score(elo: float) -> float:
    """The expected pair score of a candidate ``elo`` logistic Elo better than its baseline."""
    if elo < 0.0:  # the same, written so that a large difference underflows, never overflows
        odds = math.pow(10.0, elo / 400.0)
        return odds / (1.0 + odds)
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo(pair_score: float) -> float:
    """The logistic Elo difference of an expected pair score (infinite at 0 and 1)."""
    if pair_score <= 0.0:
        return -math.inf
    if pair_score >= 1.0:
        return math.inf
    return 400.0 * math.log10(pair_score / (1.0 - pair_score))


class Counts(NamedTuple):
    """Finished pairs by outcome, in fishtest's order: losses, draws, wins."""

    losses: int = 0
    """Pairs where the candidate finished below its twin."""
    draws: int = 0
    """Pairs where the two finished equal."""
    wins: int = 0
    """Pairs where the candidate finished above its twin."""

    @property
    def pairs(self) -> int:
        return self.losses + self.draws + self.wins

    @property
    def mean(self) -> float:
        """The mean pair score (1 above, 1/2 equal, 0 below); NaN with no pairs."""
        return (self.wins + 0.5 * self.draws) / self.pairs if self.pairs else math.nan

    def add(self, outcome: PairOutcome) -> Counts:
        if outcome == "above":
            return self._replace(wins=self.wins + 1)
        if outcome == "equal":
            return self._replace(draws=self.draws + 1)
        return self._replace(losses=self.losses + 1)


class Trinomial(NamedTuple):
    """A distribution of the pair score over (below, equal, above)."""

    loss: float
    draw: float
    win: float

    @property
    def mean(self) -> float:
        return self.win + 0.5 * self.draw

    @property
    def variance(self) -> float:
        m = self.mean
        return self.win + 0.25 * self.draw - m * m


def trinomial(s: float, draw_ratio: float) -> Trinomial:
    """The distribution of mean score ``s`` with ``draw_ratio`` equal pairs (fishtest's
    ``elo_to_bayeselo`` convention); raises ValueError if no such distribution exists."""
    win = s - draw_ratio / 2.0
    loss = 1.0 - s - draw_ratio / 2.0
    if not (0.0 <= draw_ratio <= 1.0 and win >= 0.0 and loss >= 0.0):
        raise ValueError(f"no trinomial has mean {s} and draw ratio {draw_ratio}")
    return Trinomial(loss, draw_ratio, win)


def constrained_mle(counts: Counts, s: float) -> Trinomial:
    """The most likely trinomial given ``counts`` among those of mean score ``s`` (0 < s < 1).

    Every trinomial of mean ``s`` is ``(1 - s - d/2, d, s - d/2)`` for ``d`` in
    ``[0, 2 min(s, 1 - s)]``. Its log-likelihood per pair,
    ``f(d) = pl log(1 - s - d/2) + pd log d + pw log(s - d/2)``, is concave; with
    ``u = 2 (1 - s)``, ``v = 2 s``, ``f'(d) = 0`` reads ``pd/d = pl/(u - d) + pw/(v - d)``,
    that is ``d^2 - b d + pd u v = 0`` with ``b = 2 pd + pl v + pw u``. The quadratic is
    nonnegative at 0 and nonpositive at ``min(u, v)``, so its smaller root is the optimum;
    written as ``2 pd u v / (b + sqrt(b^2 - 4 pd u v))`` it adds positive terms only. No
    equal pair seen gives ``d = 0``; only equal pairs give ``d = 2 min(s, 1 - s)``, the
    rest of the mass on the outcome on ``s``'s side.
    """
    if not 0.0 < s < 1.0:
        raise ValueError(f"a mean pair score must lie strictly between 0 and 1, not {s}")
    n = counts.pairs
    if n == 0:
        raise ValueError("no pairs: the likelihood is flat")
    d = _draw_share(counts.losses / n, counts.draws / n, counts.wins / n, s)
    return Trinomial(loss=max(0.0, 1.0 - s - d / 2.0), draw=d, win=max(0.0, s - d / 2.0))


def _draw_share(pl: float, pd: float, pw: float, s: float) -> float:
    """``d`` of ``constrained_mle``, from the observed shares of each outcome."""
    u, v = 2.0 * (1.0 - s), 2.0 * s
    c = pd * u * v
    if c == 0.0:
        return 0.0
    b = 2.0 * pd + pl * v + pw * u
    d = 2.0 * c / (b + math.sqrt(max(0.0, b * b - 4.0 * c)))
    return min(d, u, v)  # rounding must not leave the simplex


def log_likelihood(counts: Counts, q: Trinomial) -> float:
    """``sum_i n_i log q_i`` over the outcomes seen (an outcome never seen adds nothing)."""
    total = 0.0
    for n, p in ((counts.losses, q.loss), (counts.draws, q.draw), (counts.wins, q.win)):
        if n:
            total += n * math.log(p) if p > 0.0 else -math.inf
    return total


class Verdict(StrEnum):
    H0 = "H0"
    """The candidate is not better by ``elo1`` (the evidence favours ``elo0``): the lower bound
    was crossed."""
    H1 = "H1"
    """The candidate is better by at least ``elo1``: the upper bound was crossed."""
    CONTINUE = "continue"
    """Neither bound crossed yet: play another pair."""
    CAP = "cap"
    """``max_pairs`` played without a bound crossed: no decision at these error rates."""


@dataclass(frozen=True)
class SequentialTest:
    """A sequential A/B test: H0 ``elo <= elo0`` against H1 ``elo >= elo1``.

    ``alpha`` is the largest chance of accepting H1 when the truth is ``elo0``, ``beta`` of
    accepting H0 when it is ``elo1``; ``max_pairs`` caps the pairs played.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    max_pairs: int = 10_000

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 ({self.elo0}) must be below elo1 ({self.elo1})")
        if score(self.elo0) <= 0.0 or score(self.elo1) >= 1.0:
            raise ValueError("elo0 and elo1 must be differences a pair score can express")
        if not (0.0 < self.alpha < 1.0 and 0.0 < self.beta < 1.0 and self.alpha + self.beta < 1.0):
            raise ValueError("alpha and beta must be in (0, 1) with alpha + beta < 1")
        if self.max_pairs < 1:
            raise ValueError("max_pairs must be at least 1")

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted (Wald)."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted (Wald)."""
        return math.log((1.0 - self.beta) / self.alpha)

    @cached_property
    def s0(self) -> float:
        """The expected pair score under H0."""
        return score(self.elo0)

    @cached_property
    def s1(self) -> float:
        """The expected pair score under H1."""
        return score(self.elo1)

    def llr(self, counts: Counts) -> float:
        """The generalized log-likelihood ratio of H1 against H0 (0 with no pairs).

        Written out rather than through ``constrained_mle`` and ``log_likelihood``: the
        simulations of ``bench sprt`` call it millions of times (a test checks both ways agree).
        """
        losses, draws, wins = counts
        n = losses + draws + wins
        if n == 0:
            return 0.0
        s0, s1 = self.s0, self.s1
        pl, pd, pw = losses / n, draws / n, wins / n
        d0, d1 = _draw_share(pl, pd, pw, s0), _draw_share(pl, pd, pw, s1)
        total = 0.0
        if losses:
            total += losses * math.log((1.0 - s1 - d1 / 2.0) / (1.0 - s0 - d0 / 2.0))
        if draws:
            total += draws * math.log(d1 / d0)
        if wins:
            total += wins * math.log((s1 - d1 / 2.0) / (s0 - d0 / 2.0))
        return total

    def verdict(self, counts: Counts) -> Verdict:
        """Where the test stands after ``counts``: a crossed bound first, then the cap."""
        llr = self.llr(counts)
        if llr >= self.upper:
            return Verdict.H1
        if llr <= self.lower:
            return Verdict.H0
        if counts.pairs >= self.max_pairs:
            return Verdict.CAP
        return Verdict.CONTINUE

    def fixed_pairs(self, draw_ratio: float) -> float:
        """The pairs a fixed-size test needs for the same alpha, beta and difference.

        A one-sided test on the mean pair score (normal approximation) accepts H1 when
        the mean exceeds ``c``: ``c = s0 + z(1-alpha) sd0 / sqrt(n)`` gives error alpha at
        ``s0`` and ``c = s1 - z(1-beta) sd1 / sqrt(n)`` error beta at ``s1``, hence
        ``n = ((z(1-alpha) sd0 + z(1-beta) sd1) / (s1 - s0))^2``, ``sd`` the standard
        deviation of one pair's score with ``draw_ratio`` equal pairs.
        """
        unit = NormalDist()
        sd0 = math.sqrt(trinomial(self.s0, draw_ratio).variance)
        sd1 = math.sqrt(trinomial(self.s1, draw_ratio).variance)
        z_alpha, z_beta = unit.inv_cdf(1.0 - self.alpha), unit.inv_cdf(1.0 - self.beta)
        return ((z_alpha * sd0 + z_beta * sd1) / (self.s1 - self.s0)) ** 2


@dataclass(frozen=True)
class Estimate:
    """The candidate's logistic Elo over its baseline, from the pairs so far."""

    pairs: int
    score: float
    """The mean pair score."""
    elo: float
    low: float
    """The 95% interval's ends (infinite where the counts cannot bound it: all one way)."""
    high: float


def deviance(counts: Counts, s: float) -> float:
    """Twice the log-likelihood lost by constraining the mean pair score to ``s``."""
    observed = Trinomial(
        counts.losses / counts.pairs, counts.draws / counts.pairs, counts.wins / counts.pairs
    )
    best = log_likelihood(counts, observed)
    return 2.0 * (best - log_likelihood(counts, constrained_mle(counts, s)))


def _deviance_crossing(counts: Counts, inside: float, outside: float, level: float) -> float:
    """The score between ``inside`` (deviance below ``level``) and ``outside`` (the interval's
    far end, 0 or 1) where the deviance reaches ``level``: it grows monotonically from the
    estimate outwards (the profile log-likelihood of a mean is concave)."""
    for _ in range(200):
        middle = 0.5 * (inside + outside)
        if middle in (inside, outside):
            break
        if deviance(counts, middle) < level:
            inside = middle
        else:
            outside = middle
    return 0.5 * (inside + outside)


def estimate(counts: Counts, z: float = Z95) -> Estimate | None:
    """The Elo difference and its profile-likelihood interval (None before the first pair).

    The interval holds every mean pair score ``s`` that a likelihood-ratio test would not
    reject: ``deviance(s) <= z^2`` (3.84 at 95%). It is the normal interval's equal for many
    pairs, and stays sensible for a few, where the normal one shrinks to a point after
    pairs all of one outcome; an end is infinite when every pair went the same way.
    """
    n = counts.pairs
    if n == 0:
        return None
    mean = counts.mean
    level = z * z
    low = 0.0 if mean <= 0.0 else _deviance_crossing(counts, mean, 0.0, level)
    high = 1.0 if mean >= 1.0 else _deviance_crossing(counts, mean, 1.0, level)
    return Estimate(pairs=n, score=mean, elo=elo(mean), low=elo(low), high=elo(high))


@dataclass(frozen=True)
class Finish:
    """How one seat finished one game: its rank (1 best) and its score margin over the field."""

    rank: int
    margin: float
    """The seat's score minus the mean score of the other seats."""


def finish(ranks: list[int], scores: list[float], seat: int) -> Finish:
    """The seat's finish in a game's outcome (its ``ranks`` and ``scores``)."""
    others = [s for i, s in enumerate(scores) if i != seat]
    return Finish(ranks[seat], scores[seat] - sum(others) / len(others))


def pair_outcome(candidate: Finish, twin: Finish) -> PairOutcome:
    """Above when the candidate finished at a better rank than its twin; equal ranks are
    told apart by the margin over the field; equal in both is an equal pair."""
    mine, theirs = (-candidate.rank, candidate.margin), (-twin.rank, twin.margin)
    if mine > theirs:
        return "above"
    if mine < theirs:
        return "below"
    return "equal"
