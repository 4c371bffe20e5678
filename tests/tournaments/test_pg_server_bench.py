"""manage.py bench pgserver, at its smallest: a Postgres cluster of its own, one real worker
playing and rating ladder matches, the whole server's CPU per match (docs/benchmarks.md)."""

from __future__ import annotations

import glob
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.benches import bench_json
from tournaments.play.models import Match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]


@pytest.fixture
def own_tmp(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A temporary root of this test's own (another suite's bench on the machine makes its
    cluster in /tmp too), open to the postgres user that runs the cluster."""
    root = Path(tempfile.mkdtemp(prefix="pgserver-test-"))
    root.chmod(0o755)
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.mark.timeout(300)
def test_bench_pgserver_counts_every_process_of_its_own_cluster(own_tmp: Path) -> None:
    figures = bench_json("bench", "pgserver", "--server-matches", "3", "--rounds", "1")
    assert figures["bench"] == "pgserver" and figures["matches_per_round"] == 3
    assert figures["pg_server_cpu_ms_per_match"] > 0
    by_process = figures["pg_server_cpu_ms_per_match_by_process"]
    assert sum(by_process.values()) == pytest.approx(figures["pg_server_cpu_ms_per_match"], abs=0.1)
    assert by_process["worker_backends"] > 0  # the worker's backend did the playing and rating
    assert figures["events_per_match"] > 100  # Brexit matches played to their end
    assert set(figures["updates_and_hot_updates"]) >= {"tournaments_match", "tournaments_seat"}
    # The worker's one connection serves every match and every ratings wake-up.
    assert figures["connections_per_match"] < 1
    # Its database was on its own cluster: nothing here, and the cluster is gone.
    assert not Match.objects.exists()
    assert not glob.glob(f"{own_tmp}/bench-pgserver-*")
