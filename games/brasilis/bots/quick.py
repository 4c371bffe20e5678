"""A quick search Bra$ilis politician: ``search`` with 16 rollouts per dispute decision, no clock.

The same determinized Monte Carlo as ``search`` (candidates, redeal, greedy
rollouts, UCB1), cut to a fixed number of rollouts instead of a CPU-time
budget: it never reads a clock, so a game it plays depends only on its seed and
the caller's generator, on any machine and under any load; and it costs about a
sixth of ``search``'s time (other decisions are greedy's, as in ``search``).
"""

from __future__ import annotations

from games.brasilis.bots import search
from games.engine.match import Player

ITERATIONS = 16
"""Rollouts per dispute decision: about a sixth of what ``search`` gets in its 40 ms."""


def make(*, budget_ms: float | None = None, seed: int = 0, iterations: int | None = None) -> Player:
    """``search`` capped at ``iterations`` rollouts (16 by default); a clock only if ``budget_ms``."""
    return search.make(
        budget_ms=budget_ms, seed=seed, iterations=ITERATIONS if iterations is None else iterations
    )


act = make()
"""The quick search player: 16 rollouts a dispute decision."""
