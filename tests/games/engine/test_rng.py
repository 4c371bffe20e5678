"""Per-step generators: derived from (seed, version) only, lazily seeded, same draws as eager."""

from __future__ import annotations

import hashlib
import random

from hypothesis import given
from hypothesis import strategies as st

from games.engine.rng import step_rng


def eager(seed: int, version: int) -> random.Random:
    digest = hashlib.sha256(f"backroom:{seed}:{version}".encode()).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))


@given(st.integers(0, 2**63), st.integers(0, 10_000))
def test_lazy_seeding_draws_exactly_what_eager_seeding_draws(seed: int, version: int) -> None:
    lazy, reference = step_rng(seed, version), eager(seed, version)
    deck_a, deck_b = list(range(52)), list(range(52))
    lazy.shuffle(deck_a)
    reference.shuffle(deck_b)
    assert deck_a == deck_b
    assert lazy.choice("abcdef") == reference.choice("abcdef")
    assert lazy.random() == reference.random()
    assert lazy.sample(range(100), 7) == reference.sample(range(100), 7)


def test_each_step_has_its_own_stream_and_it_is_repeatable() -> None:
    assert step_rng(1, 5).random() == step_rng(1, 5).random()
    assert step_rng(1, 5).random() != step_rng(1, 6).random()
    assert step_rng(1, 5).random() != step_rng(2, 5).random()
