"""``manage.py bench engine`` at its smallest: what it prints adds up, no figure is timed.

Each rate is a count over a stopwatch's reading, which is not printed; the counts are checked
against the work they name (the folded events are those of the matches it replays, played
again here) and the one ratio against the two rates it divides.
"""

from __future__ import annotations

import random

from games.engine.match import LocalMatch
from games.engine.registry import get
from tests.support.benches import bench_json, is_quotient

SECONDS = 0.02


def test_bench_engine_counts_the_work_it_times_and_its_ratio_divides_its_rates() -> None:
    figures = bench_json(
        "bench", "engine", "--game", "brexit", "--seats", "3", "--seconds", str(SECONDS)
    )
    assert (figures["game"], figures["seats"]) == ("brexit", 3)
    # Each loop plays at least one whole game before it reads its clock.
    assert figures["games_played"] >= 1 and figures["games_played_with_observations"] >= 1
    for rate in ("games_per_s", "games_per_cpu_s", "folded_events_per_cpu_s"):
        assert figures[rate] > 0, rate

    # The replayed matches: half a second's worth at the measured rate, at least 20, seeded
    # from 10,000, dealt by one random.Random(2) in turn; their events are the ones folded.
    info = get("brexit")
    count = max(20, int(figures["games_played"] / SECONDS * 0.5))
    rng = random.Random(2)
    events = 0
    for seed in range(count):
        match = LocalMatch(info.rules, 3, seed=10_000 + seed)
        match.play_out([info.random_player] * 3, rng)
        events += len(match.events)
    assert figures["events_folded"] == events

    # The observations' cost is the CPU rate with them over the rate without, as printed.
    assert is_quotient(
        figures["observation_cost_ratio"],
        figures["games_per_cpu_s_with_observations"],
        figures["games_per_cpu_s"],
        places=(3, 1, 1),
    )
