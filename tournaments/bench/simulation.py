"""What the rating simulations draw and measure: results from a known truth, and how far an order
is from it. Tooling only (``bench convergence``, ``bench ratings`` and their tests); the ratings
themselves are tournaments/rating/ratings.py."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence


def plackett_luce_draw(strengths: Sequence[float], rng: random.Random) -> list[int]:
    """Ranks (1 best) drawn from Plackett-Luce with the given log-strengths: the true model."""
    left = list(range(len(strengths)))
    ranks = [0] * len(strengths)
    for place in range(1, len(strengths) + 1):
        weights = [math.exp(strengths[i]) for i in left]
        pick = rng.choices(left, weights=weights)[0]
        ranks[pick] = place
        left.remove(pick)
    return ranks


def kendall_tau(a: Sequence[str], b: Sequence[str]) -> float:
    """Kendall's tau between two orders of the same players (1 identical, -1 reversed)."""
    where = {p: i for i, p in enumerate(b)}
    n = len(a)
    concordant = discordant = 0
    for i in range(n):
        for j in range(i + 1, n):
            if where[a[i]] < where[a[j]]:
                concordant += 1
            else:
                discordant += 1
    pairs = n * (n - 1) // 2
    return (concordant - discordant) / pairs if pairs else 1.0
