"""UCB1 over a seat's candidate actions, shared by the games' search bots.

Each pull of an arm is one determinization of the hidden information and one
rollout, scored by the game's own ``pull``; the game decides what to sample
and how far to play.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
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
