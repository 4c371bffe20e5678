"""Per-step random generators derived from the match seed and the stream version.

The generator is never carried across steps in memory: a match resumed after a
crash, or re-run from its seed, draws exactly what an uninterrupted one draws.
Only deciding consults it; folding never does, because every outcome is
already written in the events.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any


class StepRandom(random.Random):
    """A Mersenne Twister seeded on first use.

    Most steps draw nothing (a card played, a pass), and seeding costs more than
    the rest of such a step, so the seed is only worked out when a draw is made.
    Once seeded, the object becomes a plain ``random.Random`` (its class is
    swapped), so later draws run at C speed instead of through these Python
    overrides. The draws are exactly those of ``random.Random(seed)``.
    """

    def __init__(self, seed: int, version: int) -> None:  # no super().__init__: seeding is deferred
        self._material = f"backroom:{seed}:{version}"
        self._seeded = False
        self.gauss_next = None

    def _seed_now(self) -> None:
        digest = hashlib.sha256(self._material.encode()).digest()
        random.Random.seed(self, int.from_bytes(digest[:16], "big"))
        self._seeded = True
        self.__class__ = random.Random  # type: ignore[assignment]

    def random(self) -> float:
        if not self._seeded:
            self._seed_now()
        return random.Random.random(self)

    def getrandbits(self, k: int, /) -> int:
        if not self._seeded:
            self._seed_now()
        return random.Random.getrandbits(self, k)

    def getstate(self) -> tuple[Any, ...]:
        if not self._seeded:
            self._seed_now()
        return random.Random.getstate(self)

    def setstate(self, state: tuple[Any, ...]) -> None:
        random.Random.setstate(self, state)
        self._seeded = True


def step_rng(seed: int, version: int) -> random.Random:
    """The generator for the step taken when the stream stands at ``version``."""
    return StepRandom(seed, version)
