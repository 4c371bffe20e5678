"""Random generators derived from the match seed and what they draw for.

The generator is never carried across steps in memory: a match resumed after a
crash, or re-run from its seed, draws exactly what an uninterrupted one draws.
Only deciding consults it; folding never does, because every outcome is
already written in the events.

Chance is keyed by what it draws (common random numbers): a deck's reshuffle by
the deck and how many times it was shuffled, a random pick by its purpose and
its own count, a built-in bot's generator by its seat and its own decision
count, every count folded from the events (so a resumed match knows it). Two
games on the same seed (twins of a duplicate deal, docs/ab-tests.md) thus draw
the same numbers for the same draw however far their streams have diverged;
keyed by the stream position, they would share nothing after their first
different decision. ``step_rng`` still gives the step's generator (setup draws
from it, and it carries the seed to :func:`match_seed`).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import Any


class StepRandom(random.Random):
    """A Mersenne Twister seeded on first use.

    Most steps draw nothing (a card played, a pass), and seeding costs more than
    the rest of such a step, so the seed is only worked out when a draw is made.
    Once seeded, the object becomes a plain ``random.Random`` (its class is
    swapped), so later draws run at C speed instead of through these Python
    overrides. The draws are exactly those of ``random.Random(seed)``.
    """

    def __init__(self, seed: int, version: int | str) -> None:  # no super().__init__: deferred
        self._material = f"backroom:{seed}:{version}"
        self._match_seed = seed  # an instance attribute: it outlives the class swap
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


def match_seed(rng: random.Random) -> int | None:
    """The match seed behind a step's generator, or None for any other generator (a search
    bot's rollouts pass their own: they draw from it as before, keyed by nothing)."""
    seed = getattr(rng, "_match_seed", None)
    return seed if isinstance(seed, int) else None


def keyed_rng(seed: int, purpose: str, count: int) -> random.Random:
    """The generator of the ``count``-th draw for ``purpose`` in the match on ``seed``."""
    return StepRandom(seed, f"{purpose}:{count}")


def keyed_order(seed: int, purpose: str, count: int, items: Sequence[str]) -> list[str]:
    """``items`` in a uniformly random order, keyed item by item.

    Each item gets its own key from (seed, purpose, count, item) and the items are sorted by
    it, so two games shuffling different piles on the same draw still put the cards both
    piles hold in the same relative order: twins whose discard piles differ by a card or two
    share almost all of the new deck. Equal items are interchangeable, so ties do not matter.
    """
    prefix = f"backroom:{seed}:{purpose}:{count}:".encode()

    def key(item: str) -> bytes:
        return hashlib.blake2b(prefix + item.encode(), digest_size=8).digest()

    return sorted(items, key=key)


def bot_rng(seed: int, seat: int, decisions: int) -> random.Random:
    """A built-in bot's generator for the seat's ``decisions``-th decision: the same numbers
    for the same decision in twin games, whatever the other seats did before it."""
    return QuickRandom(seed ^ (0x5EA7 << 8 | seat), decisions)


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
