"""``bench replay`` measures what it says: a long match, random steps against step 1."""

from __future__ import annotations

import pytest

from replays.models import Snapshot
from tournaments.bench.replay import bench_replay

pytestmark = pytest.mark.django_db


def test_bench_replay_reports_both_sides_and_their_ratio() -> None:
    figures = bench_replay(events=2500, rounds=5)
    assert figures["match_events"] == 2500
    assert figures["game_events"] + figures["padding_verdicts"] == 2500
    for side in ("random_step_ms", "step_1_ms"):
        assert 0 < figures[side]["median"] <= figures[side]["p95"]
    ratio = figures["random_step_ms"]["median"] / figures["step_1_ms"]["median"]
    assert figures["ratio_median"] == pytest.approx(ratio, abs=0.01)
    # The match is finished: a step's first read folds its pass of 1,000 steps whole and keeps
    # every step (tournaments/play/selectors/replay.py: folded), so no step is folded from a snapshot and
    # none is left behind (a live match's reads still leave one every 50 events:
    # tests/replays/test_snapshots.py).
    assert Snapshot.objects.count() == 0
