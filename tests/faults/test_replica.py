"""Reads from a streaming replica (issue 26): the site's and the API's read-only requests are
served by the replica, the client that wrote reads its writes from the primary, and a replica
lagging past REPLICA_MAX_LAG_SECONDS serves nothing until it catches up.

The test's own primary (initdb) and standby (pg_basebackup from it, streaming) run on ports of
their own; gunicorn serves the platform with DATABASE_URL on the primary and
REPLICA_DATABASE_URL on the standby. The proof that a read came from the replica: with the
standby's replay paused, a match written on the primary is missing from what an anonymous
client is served, while the writer sees it, and it appears once the lag passes the bound (the
primary serves) or replay resumes.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.faults.conftest import create_backroom, wait_until
from tests.faults.services import OwnPostgres
from tests.support.processes import ROOT, Proc, Processes, free_port, platform_env

pytestmark = [pytest.mark.faults]

MAX_LAG = 12.0
"""REPLICA_MAX_LAG_SECONDS of the web process: the time the paused replica may serve (every
anonymous read below must be done within it, on a loaded machine too), and the least the test
waits for the fallback to the primary."""


@pytest.fixture(scope="module")
def primary_and_standby(tmp_root: Path) -> Iterator[tuple[OwnPostgres, OwnPostgres]]:
    primary = OwnPostgres(tmp_root, "primary")
    primary.start()
    standby: OwnPostgres | None = None
    try:
        create_backroom(primary)
        standby = OwnPostgres(tmp_root, "standby", standby_of=primary)
        standby.start()
        yield primary, standby
    finally:
        if standby is not None:
            standby.stop()
        primary.stop()


def sql(pg: OwnPostgres, query: str, *params: Any, database: str = "postgres") -> Any:
    """The first column of the first row of ``query`` on ``pg`` (autocommit), if it has rows."""
    with psycopg.connect(pg.url(database), autocommit=True) as conn:
        cursor = conn.execute(query, params)
        row = cursor.fetchone() if cursor.description else None
    return None if row is None else row[0]


def replayed_now(primary: OwnPostgres, standby: OwnPostgres) -> None:
    """A transaction committed on the primary and replayed on the standby just now, so that the
    replica's lag counts from this moment once replay is paused."""
    sql(primary, "CREATE TABLE IF NOT EXISTS beat (at timestamptz)")
    sql(primary, "INSERT INTO beat VALUES (now())")
    lsn = sql(primary, "SELECT pg_current_wal_lsn()::text")
    wait_until(
        lambda: sql(standby, "SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", lsn),
        30,
        "the standby to replay the primary's last write",
    )


def ask(base: str, method: str, path: str, token: str = "", body: Any = None) -> tuple[int, bytes]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{base}{path}", data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def api_list(base: str, token: str = "") -> list[str]:
    status, body = ask(base, "GET", "/api/matches/", token)
    assert status == 200, body[:300]
    return [match["id"] for match in json.loads(body)["results"]]


def site_list(base: str, token: str = "") -> str:
    status, body = ask(base, "GET", "/matches/", token)
    assert status == 200, body[:300]
    return body.decode()


def health(base: str) -> dict[str, Any]:
    status, body = ask(base, "GET", "/health/")
    assert status == 200, body[:300]
    answer: dict[str, Any] = json.loads(body)
    return answer


def challenge(base: str, token: str) -> str:
    seats = [{"builtin": "random"}] * 3
    status, body = ask(base, "POST", "/api/matches/", token, {"game": "brexit", "seats": seats})
    assert status == 201, body[:300]
    match_id: str = json.loads(body)["id"]
    return match_id


def scans(standby: OwnPostgres, table: str = "tournaments_match") -> int:
    """Scans of ``table`` that the standby itself served (its own statistics): of its
    partitions, for a partitioned one (the events table), which counts none itself."""
    return int(
        sql(
            standby,
            "SELECT coalesce(sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0)), 0)"
            " FROM pg_stat_user_tables WHERE relname = %s"
            " OR relid IN (SELECT relid FROM pg_partition_tree(%s::regclass))",
            table,
            table,
            database="backroom",
        )
    )


def detail(base: str, match_id: str) -> dict[str, Any]:
    status, body = ask(base, "GET", f"/api/matches/{match_id}/")
    answer: dict[str, Any] = json.loads(body) if status == 200 else {}
    return answer


def verify(env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "manage.py", "verify"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    summary: dict[str, Any] = json.loads(done.stdout)
    return summary


def test_reads_come_from_the_replica_the_writer_reads_its_writes_and_lag_falls_back(
    primary_and_standby: tuple[OwnPostgres, OwnPostgres], processes: Processes
) -> None:
    primary, standby = primary_and_standby
    env = platform_env(
        DATABASE_URL=primary.url("backroom"),
        REPLICA_DATABASE_URL=standby.url("backroom"),
        REPLICA_MAX_LAG_SECONDS=str(MAX_LAG),
        # A cache prefix of its own: a fresh sign-up budget, no writer marks of other tests.
        TEST_CACHE_PREFIX=f"replica-{uuid.uuid4().hex[:8]}",
    )
    port = free_port()
    web: Proc = processes.web(env, port)
    base = f"http://127.0.0.1:{port}"

    # The writer signs up and challenges: both POSTs, on the primary.
    status, body = ask(
        base, "POST", "/api/accounts/", body={"username": "writer", "password": "a-long-Pass-9"}
    )
    assert status == 201, body[:300]
    token = json.loads(body)["token"]
    first = challenge(base, token)
    # A worker (its environment names the replica too: workers never read it) plays it.
    worker = processes.worker(env)
    wait_until(
        lambda: detail(base, first).get("status") == "finished", 90, "the first match", worker
    )

    # Replicated, the match is read by anonymous clients from the standby: its own statistics
    # count the scans of the match and event tables that the web's reads made there.
    assert health(base)["reads"] == "replica"
    before = scans(standby), scans(standby, "replays_event")
    assert first in api_list(base)
    assert ask(base, "GET", f"/api/matches/{first}/events/")[0] == 200
    assert ask(base, "GET", f"/api/matches/{first}/download/")[0] == 200
    wait_until(
        lambda: scans(standby) > before[0] and scans(standby, "replays_event") > before[1],
        30,
        "scans of the match and event tables on the standby",
        web,
    )

    # Replay paused: the standby keeps receiving WAL but shows nothing new.
    replayed_now(primary, standby)
    sql(standby, "SELECT pg_wal_replay_pause()")
    wait_until(
        lambda: sql(standby, "SELECT pg_get_wal_replay_pause_state()") == "paused",
        30,
        "replay to pause",
    )
    second = challenge(base, token)

    # Anonymous readers are served by the paused replica: the first match, not the second.
    anonymous, listed = api_list(base), site_list(base)
    pages = [ask(base, "GET", f"/matches/{m}/")[0] for m in (first, second)]
    shown = health(base)
    # The lag only grows while replay is paused: within the bound now, it was for every read above.
    assert shown["reads"] == "replica", f"lagged past {MAX_LAG} s before the reads: {shown}"
    assert 0 <= shown["replica_lag_seconds"] <= MAX_LAG, shown
    assert first in anonymous and second not in anonymous
    assert first in listed and second not in listed
    assert pages == [200, 404]
    # The writer reads its own write: the primary, for the read-your-writes window.
    assert second in api_list(base, token)
    assert second in site_list(base, token)
    assert ask(base, "GET", f"/matches/{second}/", token)[0] == 200

    # The lag grows past the bound: reads fall back to the primary, and both doors say so.
    wait_until(lambda: health(base)["reads"] == "primary", 3 * MAX_LAG, "the fallback", web)
    shown = health(base)
    assert shown["replica"] == "lagging" and shown["replica_lag_seconds"] > MAX_LAG, shown
    verified = verify({**env, "DJANGO_SETTINGS_MODULE": "config.settings.test"})
    assert verified["mismatches"] == 0 and verified["replica"] == "lagging", verified
    assert verified["replica_lag_seconds"] > shown["replica_lag_seconds"], verified
    assert second in api_list(base) and second in site_list(base)
    assert ask(base, "GET", f"/matches/{second}/")[0] == 200

    # Replay resumed: caught up, the replica serves again, the second match included.
    sql(standby, "SELECT pg_wal_replay_resume()")
    wait_until(lambda: health(base)["reads"] == "replica", 30, "the catch-up", web)
    before = scans(standby), scans(standby, "replays_event")
    assert second in api_list(base) and second in site_list(base)
    assert ask(base, "GET", f"/api/matches/{second}/events/")[0] == 200
    wait_until(
        lambda: scans(standby) > before[0] and scans(standby, "replays_event") > before[1],
        30,
        "scans of the match and event tables on the standby",
        web,
    )
