"""A quick search Brexit player: ``search`` with a fixed 8 rollouts per decision and no clock.

The same determinized Monte Carlo as ``search`` (candidates, redeal, greedy
rollouts, UCB1), cut to a fixed number of rollouts instead of a CPU-time
budget: it never reads a clock, so a game it plays depends only on its seed and
the caller's generator, on any machine and under any load; and it costs about a
third of ``search``'s time.
"""

from __future__ import annotations

from games.brexit.bots import search
from games.engine.match import Player

ITERATIONS = 8
"""Rollouts per decision: about a third of what ``search`` gets in its 30 ms."""


def make(*, budget_ms: float | None = None, seed: int = 0, iterations: int | None = None) -> Player:
    """``search`` capped at ``iterations`` rollouts (8 by default); a clock only if ``budget_ms``."""
    return search.make(
        budget_ms=budget_ms, seed=seed, iterations=ITERATIONS if iterations is None else iterations
    )


act = make()
"""The quick search player: 8 rollouts a decision."""
