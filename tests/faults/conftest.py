"""Fault tests: real services of the test's own, real workers, beats and a web server.

The platform's processes run as subprocesses pointed at the test's own Postgres,
Redis or RabbitMQ (tests/faults/services.py), which the test stops and starts.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.conf import settings

from tests.e2e.conftest import ROOT, _env
from tests.faults.services import OwnPostgres, OwnRabbit, OwnRedis

BIN = Path(sys.executable).parent


class Proc:
    """A platform process (worker, beat, web) whose output the test keeps for its messages."""

    def __init__(self, args: list[str], env: dict[str, str], ready: str) -> None:
        self.process = subprocess.Popen(
            args,
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.lines: list[str] = []
        self.ready = threading.Event()
        self._marker = ready
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)
            if self._marker in line:
                self.ready.set()

    @property
    def log(self) -> str:
        return "".join(self.lines)

    def terminate(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)

    def stop(self, grace: float = 5) -> None:
        """SIGTERM, then SIGKILL after ``grace`` s: a warm shutdown is not what is under test."""
        self.terminate()
        try:
            self.process.wait(grace)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)


class Stack:
    """Starts the platform's processes with an environment; stops them all after the test."""

    def __init__(self) -> None:
        self.procs: list[Proc] = []

    def _start(self, args: list[str], env: dict[str, str], ready: str, what: str) -> Proc:
        proc = Proc(args, env, ready)
        self.procs.append(proc)
        if not proc.ready.wait(90):
            proc.stop()
            pytest.fail(f"{what} did not start:\n{proc.log[-4000:]}")
        return proc

    def worker(self, env: dict[str, str]) -> Proc:
        name = f"faults-{uuid.uuid4().hex[:6]}@%h"
        args = [
            str(BIN / "celery"),
            "-A",
            "config",
            "worker",
            "--pool",
            "solo",
            "--loglevel",
            "INFO",
            "--queues",
            f"{settings.CELERY_TASK_DEFAULT_QUEUE},{settings.MATCH_QUEUE}",
            "--hostname",
            name,
            "--without-mingle",
            "--without-gossip",
        ]
        return self._start(args, env, " ready.", "worker")

    def beat(self, env: dict[str, str], schedule: Path) -> Proc:
        args = [
            str(BIN / "celery"),
            "-A",
            "config",
            "beat",
            "--loglevel",
            "INFO",
            "--schedule",
            str(schedule),
            "--max-interval",
            "1",
        ]
        return self._start(args, env, "beat: Starting", "beat")

    def web(self, env: dict[str, str], port: int) -> Proc:
        args = [
            str(BIN / "gunicorn"),
            "config.wsgi",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "1",
            "--threads",
            "4",
            "--access-logfile",
            "-",
        ]
        return self._start(args, env, "Booting worker", "web")

    def stop(self) -> None:
        for proc in self.procs:  # all at once: their shutdowns overlap
            proc.terminate()
        deadline = time.monotonic() + 5
        for proc in self.procs:
            proc.stop(grace=max(0.1, deadline - time.monotonic()))


@pytest.fixture
def stack() -> Iterator[Stack]:
    from config.celery import app

    app.control.purge()  # this run's queues only
    started = Stack()
    yield started
    started.stop()


def platform_env(**overrides: str) -> dict[str, str]:
    """A platform process's environment: this run's queues and test database, then overrides."""
    env = _env(lease_seconds=int(overrides.pop("MATCH_LEASE_SECONDS", "60")))
    env.update(overrides)
    return env


def django_shell(env: dict[str, str], code: str) -> Any:
    """Run ``code`` in ``manage.py shell`` with ``env``; returns the JSON it printed last."""
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    lines = done.stdout.strip().splitlines()
    return json.loads(lines[-1]) if lines else None


@pytest.fixture(scope="module")
def tmp_root() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="backroom-faults-"))
    root.chmod(0o755)  # the services' own users must reach their directories
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def own_postgres(tmp_root: Path) -> Iterator[OwnPostgres]:
    """A cluster of the module's own holding a migrated ``backroom`` database."""
    pg = OwnPostgres(tmp_root)
    pg.start()
    try:
        with psycopg.connect(pg.url("postgres"), autocommit=True) as conn:
            conn.execute("CREATE DATABASE backroom")
        migrated = subprocess.run(
            [sys.executable, "manage.py", "migrate", "--no-input"],
            cwd=ROOT,
            env={
                **os.environ,
                "DATABASE_URL": pg.url("backroom"),
                "DJANGO_SETTINGS_MODULE": "config.settings.test",
            },
            capture_output=True,
            text=True,
        )
        assert migrated.returncode == 0, migrated.stderr[-4000:]
        yield pg
    finally:
        pg.stop()


@pytest.fixture(scope="module")
def own_rabbit(tmp_root: Path) -> Iterator[OwnRabbit]:
    mq = OwnRabbit(tmp_root)
    mq.start()
    yield mq
    mq.stop()


@pytest.fixture
def own_redis(tmp_root: Path) -> Iterator[OwnRedis]:
    redis = OwnRedis(tmp_root)
    redis.start()
    yield redis
    redis.stop()


def wait_until(condition: Callable[[], bool], timeout: float, what: str, *procs: Proc) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    logs = "".join(f"\n--- log:\n{p.log[-6000:]}" for p in procs)
    pytest.fail(f"timed out waiting for {what}{logs}")


STREAMS = """
SELECT m.id::text, m.status, m.error,
       coalesce(array_agg(e.version ORDER BY e.version) FILTER (WHERE e.version IS NOT NULL), '{}'),
       count(DISTINCT e.event_id),
       count(*) FILTER (WHERE e.event_type = 'match_finished'),
       count(*) FILTER (WHERE e.event_type = 'match_aborted'),
       (SELECT count(*) FROM tournaments_seat s WHERE s.match_id = m.id AND s.rank IS NOT NULL),
       (SELECT count(*) FROM tournaments_seat s WHERE s.match_id = m.id)
FROM tournaments_match m LEFT JOIN replays_event e ON e.stream_id = m.id
WHERE m.id = ANY(%s::uuid[])
GROUP BY m.id
"""


def assert_intact(conninfo: str, match_ids: list[str]) -> None:
    """Every match finished once: contiguous versions, no duplicate, one result, ranked seats."""
    with psycopg.connect(conninfo) as conn:
        rows = conn.execute(STREAMS, [match_ids]).fetchall()
    assert len(rows) == len(match_ids)
    for mid, status, error, versions, distinct, finished, aborted, ranked, seats in rows:
        assert (status, error) == ("finished", ""), mid
        assert versions == list(range(1, len(versions) + 1)), f"{mid}: a gap in the stream"
        assert distinct == len(versions), f"{mid}: an event stored twice"
        assert (finished, aborted) == (1, 0), mid
        assert ranked == seats, f"{mid}: {ranked} of {seats} seats ranked"


def statuses(conninfo: str, match_ids: list[str]) -> dict[str, tuple[str, int]]:
    try:
        with psycopg.connect(conninfo, connect_timeout=2) as conn:
            rows = conn.execute(
                "SELECT id::text, status, last_version FROM tournaments_match"
                " WHERE id = ANY(%s::uuid[])",
                [match_ids],
            ).fetchall()
    except psycopg.OperationalError:
        return {}  # the database is down right now
    return {mid: (status, version) for mid, status, version in rows}


def verify_clean(env: dict[str, str]) -> dict[str, int]:
    """``manage.py verify`` against the database of ``env``: it must find nothing wrong."""
    done = subprocess.run(
        [sys.executable, "manage.py", "verify"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    summary: dict[str, int] = json.loads(done.stdout)
    return summary
