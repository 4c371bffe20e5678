"""manage.py bench scale, in short form: two real workers, the figures it promises, no trace
left on the broker. No figure is checked against its target (docs/scaling.md has them)."""

from __future__ import annotations

import io
import json

import pytest
from amqp.exceptions import NotFound
from django.core.management import call_command

from tournaments.play.models import Match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]


@pytest.mark.timeout(300)
def test_bench_scale_prints_matches_per_minute_for_one_and_two_processes() -> None:
    from config.celery import app

    out = io.StringIO()
    call_command(
        "bench", "scale", "--in-place", "--matches", "4", "--rounds", "1", "--seats", "3",
        "--game", "brexit", "--bots", "random",
        stdout=out,
    )  # fmt: skip
    figures = json.loads(out.getvalue())
    assert figures["bench"] == "scale" and figures["matches_per_round"] == 4
    for key in ("matches_per_minute_1_process", "matches_per_minute_2_processes", "ratio"):
        assert figures[key] > 0, key
    assert figures["events_per_match"] > 0 and figures["event_table_bytes_per_event"] > 0
    assert len(figures["round_ratios"]) == 1 and len(figures["second_process_share"]) == 1
    # What the figures are computed from: with one round, the ratio is that round's, which is also
    # the ratio of the two throughputs, and one process's wall per match is its throughput's inverse.
    [round_ratio] = figures["round_ratios"]
    assert figures["ratio"] == pytest.approx(round_ratio, abs=0.002)
    one, two = figures["matches_per_minute_1_process"], figures["matches_per_minute_2_processes"]
    assert figures["ratio_overall"] == pytest.approx(two / one, rel=0.02)
    assert figures["ratio_overall"] == pytest.approx(round_ratio, rel=0.02)
    assert figures["wall_ms_per_match_1_process"] == pytest.approx(60_000 / one, rel=0.02)
    assert 0 <= figures["second_process_share"][0] <= 1
    # Warm-up and both sides, every match really played by the workers, to the end.
    assert Match.objects.filter(status=Match.Status.FINISHED).count() == 4 + 4 + 4
    assert not Match.objects.exclude(status=Match.Status.FINISHED).exists()
    # The run's queues (the ratings one too, never consumed) are gone from the broker.
    assert len(figures["queues"]) == 7
    with app.connection_for_write() as conn:
        for name in figures["queues"]:
            with conn.channel() as channel, pytest.raises(NotFound):
                channel.queue_declare(name, passive=True)
