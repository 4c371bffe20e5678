"""The rating math: openskill without drift, multiplayer Elo, the season's maximum-likelihood fit."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.bench.simulation import kendall_tau, plackett_luce_draw
from tournaments.rating import ratings
from tournaments.rating.ratings import Skill

ranks_of_a_table = st.integers(min_value=2, max_value=6).flatmap(
    lambda n: st.lists(st.integers(min_value=1, max_value=n), min_size=n, max_size=n)
)


def test_the_winner_gains_and_the_loser_loses_on_both_scales() -> None:
    after = ratings.rate([Skill(), Skill(), Skill(), Skill()], [1, 2, 3, 4])
    assert after[0].rating > ratings.ELO_BASE > after[3].rating
    assert after[0].elo > ratings.ELO_BASE > after[3].elo
    assert all(a.sigma < ratings.SIGMA for a in after)
    assert all(a.games == 1 for a in after)


def test_no_drift_a_settled_rating_keeps_its_certainty() -> None:
    """tau = 0: a draw between equals changes neither mean nor (beyond the update) deviation."""
    settled = Skill(mu=30.0, sigma=1.0)
    after = ratings.rate([settled, Skill(mu=30.0, sigma=1.0)], [1, 1])
    assert after[0].sigma <= settled.sigma
    assert after[0].mu == pytest.approx(30.0)


@given(ranks_of_a_table)
def test_elo_is_zero_sum_and_k_is_shared_among_opponents(ranks: list[int]) -> None:
    elos = [1500.0 + 37 * i for i in range(len(ranks))]
    after = ratings.elo_update(elos, ranks)
    assert sum(after) == pytest.approx(sum(elos))
    # One seat can gain at most K against all its opponents together.
    assert all(abs(a - b) <= ratings.ELO_K + 1e-9 for a, b in zip(after, elos, strict=True))


def _elo_as_first_written(elos: list[float], ranks: list[int]) -> list[float]:
    """The textbook form the stored ratings were first computed with (the rebuild compares bits)."""
    scale = ratings.ELO_K / (len(elos) - 1)
    out = []
    for i, (elo, rank) in enumerate(zip(elos, ranks, strict=True)):
        delta = 0.0
        for j, (other, other_rank) in enumerate(zip(elos, ranks, strict=True)):
            if i != j:
                actual = 1.0 if rank < other_rank else 0.5 if rank == other_rank else 0.0
                delta += actual - 1.0 / (1.0 + 10.0 ** ((other - elo) / 400.0))
        out.append(elo + scale * delta)
    return out


@given(
    st.integers(min_value=2, max_value=6).flatmap(
        lambda n: st.tuples(
            st.lists(st.floats(min_value=0, max_value=4000), min_size=n, max_size=n),
            st.lists(st.integers(min_value=1, max_value=n), min_size=n, max_size=n),
        )
    )
)
def test_elo_gives_the_same_bits_as_the_textbook_form(table: tuple[list[float], list[int]]) -> None:
    elos, ranks = table
    assert ratings.elo_update(elos, ranks) == _elo_as_first_written(elos, ranks)


@given(st.integers(min_value=2, max_value=6).flatmap(lambda n: st.permutations(range(1, n + 1))))
def test_among_equals_a_better_rank_ends_higher(ranks: list[int]) -> None:
    """Without ties. (With ties openskill's Plackett-Luce can leave the place after three tied
    winners above them: [1, 1, 1, 2, 3] gives the 2 more than the 1s; we keep the library's answer.)"""
    after = ratings.rate([Skill() for _ in ranks], ranks)
    for i in range(len(ranks)):
        for j in range(len(ranks)):
            if ranks[i] < ranks[j]:
                assert after[i].mu > after[j].mu


def test_the_elo_like_scale() -> None:
    assert ratings.to_elo(ratings.MU) == ratings.ELO_BASE
    # 1 mu is about 29.5 Elo with openskill's default beta
    assert pytest.approx(29.48, abs=0.01) == ratings.ELO_PER_MU
    skill = Skill(mu=27.0, sigma=2.0)
    assert skill.conservative == pytest.approx(skill.rating - 3 * skill.deviation)


def test_a_new_version_starts_from_its_predecessor_less_certain() -> None:
    old = Skill(mu=31.0, sigma=1.5, elo=1620.0, games=80)
    new = ratings.new_version(old)
    assert (new.mu, new.elo, new.games) == (31.0, 1620.0, 0)
    assert old.sigma < new.sigma <= ratings.SIGMA
    assert ratings.new_version(Skill(sigma=ratings.SIGMA)).sigma == ratings.SIGMA
    assert ratings.new_version(None) == Skill()


def test_the_book_starts_a_version_from_its_newest_rated_predecessor() -> None:
    book = ratings.Book({("p", "v:1"): Skill(mu=35.0, sigma=1.0, games=50)})
    first = book.apply(
        ratings.Result(1, "m1", "p", ("v:2", "builtin:random"), (1, 2), (("v:1",), ()))
    )
    assert first[0].before == ratings.new_version(Skill(mu=35.0, sigma=1.0, games=50))
    assert first[1].before == Skill()
    assert book.skills[("p", "v:2")] == first[0].after


def test_a_player_in_two_seats_is_not_rated() -> None:
    book = ratings.Book()
    assert book.apply(ratings.Result(1, "m", "p", ("builtin:a", "builtin:a"), (1, 2))) == []
    assert book.skills == {}


def _results(
    strengths: dict[str, float], games: int, seats: int, seed: int
) -> list[dict[str, int]]:
    rng = random.Random(seed)
    names = sorted(strengths)
    out = []
    for _ in range(games):
        table = rng.sample(names, seats)
        ranks = plackett_luce_draw([strengths[p] for p in table], rng)
        out.append(dict(zip(table, ranks, strict=True)))
    return out


def test_season_fit_recovers_true_strengths_within_its_intervals() -> None:
    elo = {f"p{i}": 100.0 * i for i in range(6)}
    strengths = {p: e / ratings.ELO_PER_THETA for p, e in elo.items()}
    standings = ratings.season_standings(_results(strengths, 1500, 4, seed=7))
    assert [s.player for s in standings] == [f"p{i}" for i in reversed(range(6))]
    mean = sum(elo.values()) / len(elo)
    covered = sum(s.low <= elo[s.player] - mean + 1500 <= s.high for s in standings)
    assert covered >= 5  # 95% intervals: at most one miss in six is plausible
    assert all(0 < s.high - s.low < 120 for s in standings)
    assert [s.place for s in standings] == list(range(1, 7))


def test_season_fit_is_finite_for_an_unbeaten_player_and_handles_ties() -> None:
    results = [{"a": 1, "b": 2, "c": 2}, {"a": 1, "b": 3, "c": 2}, {"a": 1, "b": 1, "c": 3}]
    standings = ratings.season_standings(results)
    assert standings[0].player == "a"
    assert all(math.isfinite(s.elo) and s.low < s.elo < s.high for s in standings)
    assert sum(s.elo for s in standings) / 3 == pytest.approx(1500.0)


def test_more_games_give_narrower_intervals() -> None:
    strengths = {f"p{i}": 0.3 * i for i in range(4)}
    few = ratings.season_standings(_results(strengths, 40, 4, seed=1))
    many = ratings.season_standings(_results(strengths, 400, 4, seed=1))
    width = {s.player: s.high - s.low for s in few}
    assert all(s.high - s.low < width[s.player] for s in many)


def test_plackett_luce_draw_favours_the_strong() -> None:
    rng = random.Random(3)
    wins = sum(plackett_luce_draw([2.0, 0.0], rng)[0] == 1 for _ in range(2000))
    expected = 2000 * math.exp(2.0) / (math.exp(2.0) + 1.0)
    assert abs(wins - expected) < 100


def test_kendall_tau() -> None:
    assert kendall_tau(["a", "b", "c"], ["a", "b", "c"]) == 1.0
    assert kendall_tau(["a", "b", "c"], ["c", "b", "a"]) == -1.0
    assert kendall_tau(["a", "b", "c"], ["b", "a", "c"]) == pytest.approx(1 / 3)
