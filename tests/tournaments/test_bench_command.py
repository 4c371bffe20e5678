"""manage.py bench for the database benches: the figures it prints, and where it writes.

No figure is checked against a target here (timings in tests only measure the CI machine's
mood); these tests check that the benches run at their smallest, that what they print adds up
(each ratio the quotient of the figures it divides, each count the work found in the database)
and that they leave no trace.
"""

from __future__ import annotations

import io
import json
import os
import statistics
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection

from games.engine.registry import GAMES
from replays.models import Event
from tests.support.benches import is_quotient
from tournaments.play.models import Match

ROOT = Path(__file__).resolve().parents[2]
MATCH_FIGURES = {
    "matches",
    "persisted_matches_per_s",
    "in_memory_matches_per_s",
    "persisted_events_per_s",
    "raw_copy_events_per_s",
    "persisted_to_copy_ratio",
    "persisted_to_copy_ratio_overall",
    "round_ratios",
    "events_per_match",
}


@pytest.mark.django_db
def test_bench_match_prints_every_figure_for_each_game() -> None:
    out = io.StringIO()
    call_command("bench", "match", "--in-place", "--seconds", "0.2", stdout=out)
    figures = json.loads(out.getvalue())
    assert set(figures["games"]) == set(GAMES)  # the test settings' own game too
    for name, game in figures["games"].items():
        assert set(game) == MATCH_FIGURES
        # The persisted matches were really played to their end by the runner: as many as
        # it counts, in 7 rounds of at least one chunk (8) each.
        finished = Match.objects.filter(game=name, status=Match.Status.FINISHED)
        assert game["matches"] == finished.count() >= 7 * 8 and game["matches"] % 7 == 0
        # The target's ratio is the median of the rounds' (7: the middle one, exactly).
        assert len(game["round_ratios"]) == 7
        assert game["persisted_to_copy_ratio"] == statistics.median(game["round_ratios"])
        # The overall ratio is that of the two rates printed, persisted over raw COPY.
        assert is_quotient(
            game["persisted_to_copy_ratio_overall"],
            game["persisted_events_per_s"],
            game["raw_copy_events_per_s"],
            (3, 0, 0),
        ), game
        # Both persisted rates share one clock: their quotient is the events the runner
        # stored per match (the raw side copies exactly those, read back).
        stored = sum(finished.values_list("last_version", flat=True))
        assert is_quotient(
            stored / game["matches"],
            game["persisted_events_per_s"],
            game["persisted_matches_per_s"],
            (None, 0, 1),
        ), (stored, game)


@pytest.mark.django_db(transaction=True)
def test_bench_eventstore_prints_the_postgres_cpu_of_a_played_match() -> None:
    out = io.StringIO()
    call_command(
        "bench", "eventstore", "--in-place", "--batches", "7", "--match-costs", "5", stdout=out
    )
    figures = json.loads(out.getvalue())
    # 7 batches in 7 rounds, 100 events each, appended to streams of no match: all stored.
    assert figures["events_each"] == 7 * 100
    outside_matches = Event.objects.exclude(stream_id__in=Match.objects.values("id"))
    assert outside_matches.count() == figures["events_each"]
    assert len(figures["round_ratios"]) == 7
    assert figures["append_to_copy_ratio"] == statistics.median(figures["round_ratios"])
    assert is_quotient(
        figures["append_to_copy_ratio_overall"],
        figures["append_events_per_s"],
        figures["raw_copy_events_per_s"],
        (3, 0, 0),
    ), figures
    # Each match played to its end, as a worker plays it: claimed, streamed, finished by its
    # final event (and one more before the figures, to warm up, not counted).
    finished = Match.objects.filter(status=Match.Status.FINISHED).order_by("created_at")
    assert finished.count() == 6
    counted = list(finished.values_list("last_version", flat=True))[1:]
    assert figures["matches"] == len(counted) == 5
    assert figures["events_per_match"] == round(sum(counted) / 5, 1)
    # One match a round (5 // 5): the figure is the median round, and the creation and the
    # rest of a match add up to the mean round, each printed to 0.01 ms.
    rounds = figures["pg_cpu_ms_per_match_rounds"]
    assert len(rounds) == 5 and figures["pg_cpu_ms_per_match"] == statistics.median(rounds)
    whole = figures["pg_cpu_ms_create"] + figures["pg_cpu_ms_play"]
    assert abs(whole - statistics.mean(rounds)) <= 0.015 + 1e-9, figures


def _server(dbname: str) -> psycopg.Connection:
    db = connection.settings_dict
    return psycopg.connect(host=db["HOST"], port=db["PORT"], user=db["USER"], dbname=dbname)


@pytest.mark.django_db
def test_the_database_benches_run_in_a_throwaway_database() -> None:
    """Without --in-place nothing lands in the configured database, and the bench's own is dropped."""
    name = f"benchcheck_{uuid.uuid4().hex[:8]}"
    db = connection.settings_dict
    with _server("postgres") as server:
        server.autocommit = True
        server.execute(f"CREATE DATABASE {name}")
    try:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.local",
            "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{name}",
        }
        done = subprocess.run(
            [
                sys.executable,
                "manage.py",
                "bench",
                "eventstore",
                "--batches",
                "5",
                "--match-costs",
                "5",
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        figures = json.loads(done.stdout)
        # It ran there: 7 rounds of one batch (5 // 7, at least 1) of 100, and 5 matches.
        assert figures["events_each"] == 7 * 100 and figures["matches"] == 5
        with _server("postgres") as server:
            left = server.execute(
                "SELECT datname FROM pg_database WHERE datname LIKE %s", [f"{name}%"]
            ).fetchall()
        assert left == [(name,)]  # the configured one only: <name>_bench is gone
        with _server(name) as configured:
            tables = configured.execute(
                "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
            )
            assert tables.fetchone() == (0,)  # never migrated, never written
    finally:
        with _server("postgres") as server:
            server.autocommit = True
            server.execute(f"DROP DATABASE IF EXISTS {name}")
            server.execute(f"DROP DATABASE IF EXISTS {name}_bench")
