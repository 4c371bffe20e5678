"""``manage.py bench sprt``: the sequential A/B test's error rates and cost, and what duplicate
deals save on the real engines.

Simulation: pairs are drawn from a trinomial with a known true difference (elo0, then elo1)
and a fixed share of equal pairs; each simulated test runs ``tournaments.rating.sprt.SequentialTest``
pair by pair until its verdict. The cap is set far beyond the fixed-size test's pairs, so that
it measures the test's own stopping, and the tests it stopped are counted apart.

Real engines: ``tournaments.bench.twins`` for each game's pair of built-ins.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tournaments.bench import twins
from tournaments.rating.sprt import Counts, SequentialTest, Trinomial, Verdict, score, trinomial

CAP_OVER_FIXED = 10
"""The simulated tests' cap, in fixed-size tests: far enough never to decide for them."""


@dataclass(frozen=True)
class Twins:
    """One game's pair of built-ins for the duplicate-deal measurement."""

    game: str
    candidate: str
    baseline: str
    field: tuple[str, ...]
    pairs: int


def run_test(test: SequentialTest, truth: Trinomial, rng: random.Random) -> tuple[Verdict, int]:
    """One sequential test on pairs drawn from ``truth``: its verdict and the pairs it played."""
    below, below_or_equal = truth.loss, truth.loss + truth.draw
    losses = draws = wins = 0
    while True:
        x = rng.random()
        if x < below:
            losses += 1
        elif x < below_or_equal:
            draws += 1
        else:
            wins += 1
        verdict = test.verdict(Counts(losses, draws, wins))
        if verdict is not Verdict.CONTINUE:
            return verdict, losses + draws + wins


def simulate(test: SequentialTest, truth: Trinomial, tests: int, seed: int) -> dict[str, Any]:
    """``tests`` sequential tests at one true distribution: how they ended and their length."""
    rng = random.Random(seed)  # noqa: S311 (a seeded simulation, reproducible by design)
    verdicts = {v: 0 for v in (Verdict.H0, Verdict.H1, Verdict.CAP)}
    pairs = 0
    for _ in range(tests):
        verdict, played = run_test(test, truth, rng)
        verdicts[verdict] += 1
        pairs += played
    return {
        "h0": verdicts[Verdict.H0],
        "h1": verdicts[Verdict.H1],
        "capped": verdicts[Verdict.CAP],
        "mean_pairs": round(pairs / tests, 1),
    }


def bench_sprt(
    *,
    elo0: float = 0.0,
    elo1: float = 20.0,
    alpha: float = 0.05,
    beta: float = 0.05,
    draw_ratio: float = 0.03,
    tests: int = 1000,
    seed: int = 1,
    games: Sequence[Twins] = (),
    resamples: int = 200,
) -> dict[str, Any]:
    started = time.perf_counter()
    probe = SequentialTest(elo0, elo1, alpha, beta)
    fixed = probe.fixed_pairs(draw_ratio)
    test = SequentialTest(elo0, elo1, alpha, beta, max_pairs=math.ceil(CAP_OVER_FIXED * fixed))
    at_elo0 = simulate(test, trinomial(score(elo0), draw_ratio), tests, seed)
    at_elo1 = simulate(test, trinomial(score(elo1), draw_ratio), tests, seed + 1)
    ratio0 = at_elo0["mean_pairs"] / fixed
    ratio1 = at_elo1["mean_pairs"] / fixed
    simulated = time.perf_counter() - started
    duplicate: dict[str, Any] = {}
    for spec in games:
        began = time.perf_counter()
        deals = twins.play_deals(
            spec.game, spec.candidate, spec.baseline, spec.field, spec.pairs, seed
        )
        # A game measured again with other bots is named by them too.
        name = (
            spec.game
            if spec.game not in duplicate
            else f"{spec.game}:{spec.candidate}:{spec.baseline}"
        )
        duplicate[name] = {
            "game": spec.game,
            "candidate": spec.candidate,
            "baseline": spec.baseline,
            "field": list(spec.field),
            "pairs": spec.pairs,
            **twins.compare(deals, resamples=resamples, seed=seed),
            "seconds": round(time.perf_counter() - began, 1),
        }
    closest = {
        game: twins.closest({k: v for k, v in duplicate.items() if v["game"] == game})
        for game in dict.fromkeys(spec.game for spec in games)
    }
    return {
        "alpha": alpha,
        "beta": beta,
        "elo0": elo0,
        "elo1": elo1,
        "draw_ratio": draw_ratio,
        "tests_per_point": tests,
        "type1_observed": at_elo0["h1"] / tests,
        "type2_observed": at_elo1["h0"] / tests,
        "at_elo0": at_elo0,
        "at_elo1": at_elo1,
        "max_pairs": test.max_pairs,
        "fixed_pairs": round(fixed, 1),
        "pairs_ratio_at_elo0": round(ratio0, 4),
        "pairs_ratio_at_elo1": round(ratio1, 4),
        "pairs_ratio_vs_fixed": round(max(ratio0, ratio1), 4),
        # Each game's closest pair that differs (twins.closest), and its ratio.
        "closest": closest,
        "duplicate_pairs_ratio": _ratio_of(duplicate, closest.get("brexit")),
        "duplicate_pairs_ratio_brasilis": _ratio_of(duplicate, closest.get("brasilis")),
        "duplicate": duplicate,
        "simulation_seconds": round(simulated, 1),
        "seconds": round(time.perf_counter() - started, 1),
    }


def _ratio_of(duplicate: dict[str, Any], name: str | None) -> float | None:
    return None if name is None else duplicate[name]["ratio"]
