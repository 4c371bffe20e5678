"""manage.py bench for the database benches: the figures it prints, and where it writes.

No figure is checked against a target here (timings in tests only measure the CI machine's
mood); these tests check that the benches run, report what they promise and leave no trace.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection

from games.engine.registry import GAMES
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
    for game in figures["games"].values():
        assert set(game) == MATCH_FIGURES
        assert game["matches"] > 0 and game["persisted_to_copy_ratio"] > 0
        assert len(game["round_ratios"]) == 7
    # The persisted matches were really played to their end by the runner.
    assert Match.objects.filter(status=Match.Status.FINISHED).count() == sum(
        g["matches"] for g in figures["games"].values()
    )


@pytest.mark.django_db(transaction=True)
def test_bench_eventstore_prints_the_postgres_cpu_of_a_played_match() -> None:
    out = io.StringIO()
    call_command(
        "bench", "eventstore", "--in-place", "--batches", "7", "--match-costs", "5", stdout=out
    )
    figures = json.loads(out.getvalue())
    assert figures["append_to_copy_ratio"] > 0 and figures["append_to_copy_cpu_ratio"] > 0
    assert figures["matches"] == 5 and len(figures["pg_cpu_ms_per_match_rounds"]) == 5
    assert figures["pg_cpu_ms_per_match"] > 0
    assert figures["pg_cpu_ms_create"] > 0 and figures["pg_cpu_ms_play"] > 0
    # Each match played to its end, as a worker plays it: claimed, streamed, finished by its
    # final event (and one more before the figures, to warm up).
    finished = Match.objects.filter(status=Match.Status.FINISHED)
    assert finished.count() == 6
    events = sum(finished.values_list("last_version", flat=True))
    assert figures["events_per_match"] * 5 <= events  # the warm-up's are not counted
    assert 100 < figures["events_per_match"] < 250  # Brexit, four seats


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
        assert figures["append_to_copy_ratio"] > 0 and figures["pg_cpu_ms_per_match"] > 0
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
