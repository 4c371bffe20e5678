"""bench ratings and bench convergence print their figures (short runs)."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from tournaments import convergence


@pytest.mark.django_db(transaction=True)
def test_bench_ratings_prints_rebuild_and_consumer_figures() -> None:
    out = StringIO()
    call_command("bench", "ratings", "--in-place", "--results", "3000", stdout=out)
    figures = json.loads(out.getvalue())
    assert figures["results"] == figures["rebuild_results"] == 3000
    assert figures["rebuild_differences"] == 0
    assert figures["consumer_updates_per_s"] > 0 and figures["bare_library_updates_per_s"] > 0
    assert 0 < figures["consumer_to_bare_ratio"] < 2


def test_bench_convergence_prints_json() -> None:
    out = StringIO()
    call_command("bench", "convergence", "--seeds", "1", stdout=out)
    figures = json.loads(out.getvalue())
    assert figures["seeds"] == 1 and figures["bots"] == 20
    assert len(figures["settled_games_per_bot_per_seed"]) == 1
    assert figures["settled_games_per_bot_median"] == figures["settled_games_per_bot_per_seed"][0]


def test_the_ladder_finds_the_true_order_of_twenty_bots() -> None:
    """A shorter convergence run: 3 seeds, and a looser target than the bench's 60 games."""
    runs = [convergence.simulate(seed=s, games_per_bot=80, newcomer_games=8) for s in range(3)]
    assert all(r.final_tau >= 0.85 for r in runs)
    settled = sorted(r.settled_at if r.settled_at is not None else 1e9 for r in runs)
    assert settled[1] <= 80


def test_a_newcomer_is_placed_near_its_true_rank_by_its_mean_rating() -> None:
    """The bench's newcomer figure over its 10 seeds, by mean rating (docs/benchmarks.md).

    Placement seats it among the settled bots nearest its rating; without it, 2 of 10.
    """
    runs = [convergence.simulate(seed=s, newcomer_games=8) for s in range(10)]
    errors = [r.newcomer_mean_error_at_8 for r in runs]
    assert sum(1 for e in errors if e is not None and e <= 1) >= 5
