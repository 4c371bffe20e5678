"""Fault tests: real services of the test's own, real workers, beats and a web server.

The platform's processes run as subprocesses pointed at the test's own Postgres,
Redis or RabbitMQ (tests/faults/services.py), which the test stops and starts.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.conf import settings

from tests.faults.services import OwnPostgres, OwnRabbit, OwnRedis
from tests.support.processes import ROOT, Proc, Processes, platform_env, wait_until

__all__ = ["Proc", "Stack", "platform_env", "wait_until"]


class Stack(Processes):
    """The platform's processes of one fault test: workers on the default and match queues."""

    def worker(self, env: dict[str, str] | None = None, **options: Any) -> Proc:  # type: ignore[override]
        options.setdefault("queues", f"{settings.CELERY_TASK_DEFAULT_QUEUE},{settings.MATCH_QUEUE}")
        options.setdefault("prefix", "faults")
        return super().worker(env, **options)

    def stop(self) -> None:
        self.stop_all()


@pytest.fixture
def stack() -> Iterator[Stack]:
    from config.celery import app

    app.control.purge()  # this run's queues only
    started = Stack()
    try:
        yield started
    finally:
        started.stop_all()


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
        create_backroom(pg)
        yield pg
    finally:
        pg.stop()


def create_backroom(pg: OwnPostgres) -> None:
    """A ``backroom`` database in ``pg``, migrated."""
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
