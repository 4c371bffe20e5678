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


_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def _mix64(z: int) -> int:
    """splitmix64's finaliser: a bijection on 64-bit integers that scatters every input bit."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


class QuickRandom(random.Random):
    """A per-step generator for callers that usually draw a number or two (a bot's move).

    Seeding a Mersenne Twister costs about 4 µs, several times a random bot's whole
    move, and a match asks for one generator per decision. This one starts as
    splitmix64 over a key mixed from (seed, version), a few integer operations per
    draw, and becomes a Mersenne Twister seeded from its own state (class swapped,
    as StepRandom does) once its owner has drawn ``FEW`` numbers, so a search bot's
    rollouts still draw at C speed. Its draws depend on (seed, version) only, on any
    machine and Python version. They are not those of ``step_rng``: the game's own
    draws keep that one, which recorded games and tests were made with.
    """

    FEW = 16

    def __init__(self, seed: int, version: int) -> None:  # no super().__init__: seeding is deferred
        self._state = _mix64((seed & _MASK) ^ _mix64((version * _GOLDEN) & _MASK))
        self._draws = 0
        self._twister = False
        self.gauss_next = None

    # Methods bound before the class swap (random.shuffle binds getrandbits once) outlive
    # it, so the swap is read from an instance attribute, and the class is named explicitly.
    def _become_twister(self) -> None:
        if not self._twister:
            random.Random.seed(self, self._state)
            self._twister = True
            self.__class__ = random.Random  # type: ignore[assignment]

    def _next64(self) -> int | None:
        """The next splitmix64 output, or None once the owner has drawn FEW (then: twister)."""
        if self._twister or self._draws >= QuickRandom.FEW:
            QuickRandom._become_twister(self)
            return None
        self._draws += 1
        # splitmix64, inlined: this runs for most of a random bot's draws.
        z = self._state = (self._state + _GOLDEN) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def random(self) -> float:
        z = QuickRandom._next64(self)
        if z is None:
            return random.Random.random(self)
        return (z >> 11) * (1.0 / (1 << 53))

    def getrandbits(self, k: int, /) -> int:
        if k == 0:
            return 0
        z = QuickRandom._next64(self) if 0 < k <= 64 else None
        if z is None:
            QuickRandom._become_twister(self)
            return random.Random.getrandbits(self, k)
        return z >> (64 - k)

    def getstate(self) -> tuple[Any, ...]:
        QuickRandom._become_twister(self)
        return random.Random.getstate(self)

    def setstate(self, state: tuple[Any, ...]) -> None:
        random.Random.setstate(self, state)
        self._twister = True
        self.__class__ = random.Random  # type: ignore[assignment]

    def seed(self, a: Any = None, version: int = 2) -> None:
        random.Random.seed(self, a, version)
        self._twister = True
        self.__class__ = random.Random  # type: ignore[assignment]


def quick_rng(seed: int, version: int) -> random.Random:
    """A QuickRandom for the step taken when the stream stands at ``version``."""
    return QuickRandom(seed, version)
