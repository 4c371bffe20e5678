"""How much luck duplicate deals take out of an A/B test, on the real engines.

A pair plays one deal twice, the candidate in a seat and then the baseline in that seat,
against the same field on the same seed (the twin). The same test with independent deals
would play the twin on a fresh seed. Built-in bots play in-process through the match
driver, as a worker plays them (their generators are the driver's: keyed by seat and each
seat's own decision count, the game's draws by what they draw, games/engine/rng.py), with no
database.

Both designs are measured from the same games: deal ``i`` gives the duplicate pair
``(A_i, B_i)``, and every ``(A_i, B_j)`` with ``j != i`` and the same seat is a pair on
independent deals, so the independent design's outcome distribution is the average over
all of them (a U-statistic: its outcome depends on the two games' marginals only). The
pairs a test needs go as ``variance / (mean - 1/2)^2`` of the pair score (the fixed-size
formula, ``tournaments.rating.sprt.SequentialTest.fixed_pairs``; the SPRT's expected size scales the
same way), so the ratio of the two designs is that quantity's ratio. Its 95% interval is a
bootstrap over deals.
"""

from __future__ import annotations

import bisect
import math
import random
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from games.engine.builtin import make_player
from games.engine.driver import InProcess, MatchDriver, MemorySink
from games.engine.registry import get
from games.engine.types import Event
from tournaments.rating.sprt import Z95, Finish, Trinomial, elo, finish

Key = Callable[[Finish], tuple[float, ...]]
"""A pair statistic: the candidate is above its twin when its key is greater."""

STATISTICS: dict[str, Key] = {
    "rank": lambda f: (-f.rank,),
    "margin": lambda f: (f.margin,),
    "rank_then_margin": lambda f: (-f.rank, f.margin),
}
"""The statistics compared; ``rank_then_margin`` is the test's own (sprt.pair_outcome)."""
CHOSEN = "rank_then_margin"

DEAL_SEED = 7_000_003
"""Deal ``i`` of a run with seed ``s`` plays on match seed ``s * DEAL_SEED + i``."""


@dataclass(frozen=True)
class Deal:
    seat: int
    candidate: Finish
    twin: Finish
    shared: float = 1.0
    """The share of the candidate's game played before the twins' events first differ."""


def play(game: str, lineup: Sequence[str], seat: int, seed: int) -> tuple[Finish, list[Event]]:
    """One game through the match driver: the finish of ``seat`` and the game's events."""
    players = [
        InProcess(make_player(game, bot, seed=seed * 31 + s)) for s, bot in enumerate(lineup)
    ]
    sink = MemorySink()
    driver = MatchDriver(
        get(game).rules, seats=len(lineup), seed=seed, options={}, players=players, sink=sink
    )
    outcome = driver.run()
    return finish(list(outcome["ranks"]), list(outcome["scores"]), seat), sink.events


def shared_share(game: Sequence[Event], twin: Sequence[Event]) -> float:
    """The share of ``game``'s events before the first that differs from its twin's."""
    for i, (mine, theirs) in enumerate(zip(game, twin, strict=False)):
        if mine["type"] != theirs["type"] or mine["payload"] != theirs["payload"]:
            return i / len(game)
    return min(len(game), len(twin)) / len(game)


def play_deals(
    game: str, candidate: str, baseline: str, field: Sequence[str], deals: int, seed: int
) -> list[Deal]:
    """Deal ``i`` seats the candidate (then the baseline) in seat ``i mod seats``."""
    seats = len(field) + 1
    out = []
    for i in range(deals):
        seat = i % seats
        match_seed = seed * DEAL_SEED + i
        (mine, events), (theirs, twin) = (
            play(game, [*field[:seat], bot, *field[seat:]], seat, match_seed)
            for bot in (candidate, baseline)
        )
        out.append(Deal(seat, mine, theirs, shared_share(events, twin)))
    return out


def _duplicate(deals: Sequence[Deal], weights: Sequence[int], key: Key) -> Trinomial:
    above = equal = total = 0
    for deal, w in zip(deals, weights, strict=True):
        mine, theirs = key(deal.candidate), key(deal.twin)
        above += w * (mine > theirs)
        equal += w * (mine == theirs)
        total += w
    return Trinomial((total - above - equal) / total, equal / total, above / total)


def _independent(deals: Sequence[Deal], weights: Sequence[int], key: Key) -> Trinomial:
    """Every candidate game against every baseline game of the same seat and another deal,
    each deal counted ``weights[i]`` times (a bootstrap resample)."""
    keyed: dict[int, list[tuple[tuple[float, ...], tuple[float, ...], int]]] = {}
    for d, w in zip(deals, weights, strict=True):
        keyed.setdefault(d.seat, []).append((key(d.candidate), key(d.twin), w))
    above = equal = total = 0
    for group in keyed.values():
        twins = sorted((t, w) for _, t, w in group)
        values = [t for t, _ in twins]
        cumulative = [0, *accumulate(w for _, w in twins)]
        everyone = cumulative[-1]
        for own, twin, w in group:
            if not w:
                continue
            lo, hi = bisect.bisect_left(values, own), bisect.bisect_right(values, own)
            below_w, equal_w = cumulative[lo], cumulative[hi] - cumulative[lo]
            # Leave out the deal's own twin (w copies of the pair, each counted w times there):
            # that pair is a duplicate one.
            below_w -= w * (twin < own)
            equal_w -= w * (twin == own)
            above += w * below_w
            equal += w * equal_w
            total += w * (everyone - w)
    return Trinomial((total - above - equal) / total, equal / total, above / total)


def pairs_needed(q: Trinomial) -> float:
    """Pairs to tell the mean from 1/2, up to a constant: variance / difference^2."""
    difference = q.mean - 0.5
    return q.variance / (difference * difference) if difference else float("inf")


def design_ratio(duplicate: Trinomial, independent: Trinomial) -> float:
    """The pairs the duplicate design needs over those the independent one needs (NaN when
    neither needs any or neither can decide)."""
    dup, ind = pairs_needed(duplicate), pairs_needed(independent)
    if ind == 0.0 or math.isinf(ind):
        return math.nan if dup == ind else (math.inf if ind == 0.0 else 0.0)
    return dup / ind


def _ratio(deals: Sequence[Deal], weights: Sequence[int], key: Key) -> float:
    return design_ratio(_duplicate(deals, weights, key), _independent(deals, weights, key))


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))]


def _variance(values: Sequence[float]) -> float:
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / len(values)


def compare(deals: Sequence[Deal], *, resamples: int, seed: int) -> dict[str, Any]:
    """Each statistic's outcome distribution in both designs and the ratio of the pairs needed;
    the chosen statistic's ratio with its bootstrap interval; the margins' shared variance."""
    ones = [1] * len(deals)
    figures: dict[str, Any] = {}
    for name, key in STATISTICS.items():
        dup, ind = _duplicate(deals, ones, key), _independent(deals, ones, key)
        figures[name] = {
            "duplicate": _distribution(dup),
            "independent": _distribution(ind),
            "pairs_needed_duplicate": _number(pairs_needed(dup), 3),
            "pairs_needed_independent": _number(pairs_needed(ind), 3),
            "ratio": _number(design_ratio(dup, ind), 4),
        }
    rng = random.Random(seed)  # noqa: S311 (a seeded bootstrap, reproducible by design)
    ratios = []
    for _ in range(resamples):
        weights = [0] * len(deals)
        for _ in deals:
            weights[rng.randrange(len(deals))] += 1
        ratio = _ratio(deals, weights, STATISTICS[CHOSEN])
        ratios.append(math.inf if math.isnan(ratio) else ratio)  # neither design resolves it
    ratios.sort()
    key = STATISTICS[CHOSEN]
    scores = [
        1.0 if key(d.candidate) > key(d.twin) else 0.5 if key(d.candidate) == key(d.twin) else 0.0
        for d in deals
    ]
    candidate = [d.candidate.margin for d in deals]
    twin = [d.twin.margin for d in deals]
    difference = [c - t for c, t in zip(candidate, twin, strict=True)]
    return {
        "statistic": CHOSEN,
        "ratio": figures[CHOSEN]["ratio"],
        "ratio_ci95": [_number(_quantile(ratios, 0.025), 4), _number(_quantile(ratios, 0.975), 4)]
        if ratios
        else None,
        "statistics": figures,
        **pair_score(scores),
        # How far into a game twins stay the same game (the median share of its events).
        "played_alike_median": round(statistics.median(d.shared for d in deals), 4),
        # The luck twins share, whatever the statistic: Var(margin difference) over what it
        # would be between independent games (the sum of the two variances).
        "margin_variance_ratio": round(
            _variance(difference) / (_variance(candidate) + _variance(twin)), 4
        ),
    }


def pair_score(scores: Sequence[float]) -> dict[str, Any]:
    """The candidate's mean pair score on duplicate deals (1 above its twin, 1/2 equal, 0
    below) with its 95% normal interval over deals, and both as logistic Elo differences: what
    says how far apart the two built-ins are, and whether they differ at all (the interval
    excludes 1/2), for choosing the closest pair (``closest``)."""
    n = len(scores)
    mean = sum(scores) / n
    half = Z95 * math.sqrt(_variance(scores) / (n - 1)) if n > 1 else math.inf
    low, high = max(0.0, mean - half), min(1.0, mean + half)
    return {
        "pair_score": round(mean, 4),
        "pair_score_ci95": [round(low, 4), round(high, 4)],
        "elo": _number(elo(mean), 1),
        "elo_ci95": [_number(elo(low), 1), _number(elo(high), 1)],
    }


def closest(measured: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The closest of the measured pairs of built-ins that do differ: the smallest Elo
    difference (either way) among those whose pair score's 95% interval excludes 1/2. Chosen by
    this rule, stated beforehand, and not by the ratio it gives; None if none differs."""
    differing = [
        (abs(m["elo"]), name)
        for name, m in measured.items()
        if m["elo"] is not None and (m["pair_score_ci95"][0] > 0.5 or m["pair_score_ci95"][1] < 0.5)
    ]
    return min(differing)[1] if differing else None


def _number(x: float, digits: int) -> float | None:
    """``x`` rounded, or None where no pairs would do (no difference to detect): JSON has no
    infinity."""
    return round(x, digits) if math.isfinite(x) else None


def _distribution(q: Trinomial) -> dict[str, float]:
    return {
        "above": round(q.win, 4),
        "equal": round(q.draw, 4),
        "below": round(q.loss, 4),
        "mean": round(q.mean, 4),
    }
