"""Per-step generators: derived from (seed, version) only, lazily seeded, same draws as eager."""

from __future__ import annotations

import hashlib
import random

from hypothesis import given
from hypothesis import strategies as st

from games.engine.rng import QuickRandom, quick_rng, step_rng


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


def test_quick_draws_depend_on_seed_and_version_only() -> None:
    # Pinned: a match resumed by a newer deploy must make the same bot choices.
    assert quick_rng(1, 2).getrandbits(64) == 7414972711310570078
    r = quick_rng(2**62 + 7, 1000)
    assert [r.randrange(1000) for _ in range(5)] == [566, 224, 53, 741, 608]


@given(st.integers(0, 2**63), st.integers(0, 10_000))
def test_quick_generators_repeat_across_the_switch_to_the_twister(seed: int, version: int) -> None:
    a, b = quick_rng(seed, version), quick_rng(seed, version)
    draws = 3 * QuickRandom.FEW
    assert [a.random() for _ in range(draws)] == [b.random() for _ in range(draws)]
    assert type(a) is random.Random  # switched: a search bot's rollouts draw at C speed


def test_quick_generators_differ_per_step_and_per_seat_key() -> None:
    firsts = {
        quick_rng(seed, version).getrandbits(64) for seed in range(20) for version in range(50)
    }
    assert len(firsts) == 1000


def test_quick_draws_are_uniform_enough_for_bots() -> None:
    counts = [0] * 6
    for version in range(60_000):  # one draw per step, as a random bot makes
        counts[quick_rng(99, version).randrange(6)] += 1
    assert all(abs(c - 10_000) < 400 for c in counts), counts  # about 4 standard deviations
    bits = [quick_rng(5, v).getrandbits(k) for v in range(200) for k in (1, 7, 33, 64, 65, 200)]
    assert all(x >= 0 for x in bits)
    assert quick_rng(5, 1).getrandbits(0) == 0


def test_quick_generators_keep_the_random_api() -> None:
    r = quick_rng(3, 4)
    deck = list(range(52))
    r.shuffle(deck)
    assert sorted(deck) == list(range(52))
    state = quick_rng(3, 4).getstate()
    twin = random.Random()
    twin.setstate(state)
    assert twin.random() == random.Random.random(quick_rng_twister(3, 4))


def quick_rng_twister(seed: int, version: int) -> random.Random:
    r = quick_rng(seed, version)
    r.getstate()  # switches it to the twister without drawing
    return r
