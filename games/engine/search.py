"""UCB1 over a seat's candidate actions, shared by the games' search bots.

Each pull of an arm is one determinization of the hidden information and one
rollout, scored by the game's own ``pull``; the game decides what to sample
and how far to play.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

A = TypeVar("A")


def ucb1(
    options: Sequence[A],
    pull: Callable[[A], float],
    *,
    iterations: int,
    deadline: float | None,
    exploration: float,
) -> A:
    """The most-visited option after ``iterations`` pulls or when CPU time reaches ``deadline``.

    Every option is pulled once before the deadline is looked at, so a tight
    budget still compares them all. ``deadline`` is ``time.process_time()``.
    """
    k = len(options)
    visits = [0] * k
    total = [0.0] * k
    for it in range(iterations):
        if deadline is not None and it >= k and time.process_time() >= deadline:
            break
        if it < k:
            arm = it
        else:
            log_n = math.log(it)
            arm = max(
                range(k),
                key=lambda i: total[i] / visits[i] + exploration * math.sqrt(log_n / visits[i]),
            )
        total[arm] += pull(options[arm])
        visits[arm] += 1
    # The most-visited arm is the robust choice; the mean breaks equal visit counts.
    best = max(range(k), key=lambda i: (visits[i], total[i] / visits[i] if visits[i] else 0.0))
    return options[best]


@dataclass(frozen=True)
class Budget:
    """How long a search may think: CPU milliseconds per decision and/or a cap on pulls.

    With ``iterations`` alone no clock is read, so the search is deterministic.
    CPU time (``time.process_time``) rather than wall-clock, so that a loaded
    machine slows a bot down rather than weakening it.
    """

    ms: float | None
    iterations: int

    @classmethod
    def of(
        cls, ms: float | None, iterations: int | None, *, default_ms: float, max_iterations: int
    ) -> Budget:
        if ms is None and iterations is None:
            ms = default_ms
        return cls(ms, iterations if iterations is not None else max_iterations)

    def deadline(self) -> float | None:
        """The CPU time at which a search started now must stop."""
        return None if self.ms is None else time.process_time() + self.ms / 1000


def search(
    options: Sequence[A],
    pull: Callable[[A], float],
    *,
    budget: Budget,
    exploration: float,
) -> A:
    """UCB1 over ``options`` within ``budget``; ``pull`` is one determinization and one rollout."""
    return ucb1(
        options,
        pull,
        iterations=budget.iterations,
        deadline=budget.deadline(),
        exploration=exploration,
    )
