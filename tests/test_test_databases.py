"""`make test` leaves the configured database alone: it runs beside `make up`, on its own copies.

Under xdist each worker clones a template into a database of its own (tests/support/database.py)
and drops it when it ends. Django's teardown puts the configured name back into the settings
before that drop; a drop by the name read after it removed the platform's own database (the one
`make up` serves), with every connection to it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.services


def _databases(like: str) -> set[str]:
    db = connection.settings_dict
    with psycopg.connect(
        host=db["HOST"], port=db["PORT"], user=db["USER"], dbname="postgres", autocommit=True
    ) as server:
        rows = server.execute("SELECT datname FROM pg_database WHERE datname LIKE %s", [like])
        return {name for (name,) in rows.fetchall()}


def test_a_parallel_run_drops_its_own_databases_and_not_the_configured_one() -> None:
    db = connection.settings_dict
    tag = uuid.uuid4().hex[:8]
    configured, test_name = f"dbkeep_{tag}", f"dbkeep_test_{tag}"
    with psycopg.connect(
        host=db["HOST"], port=db["PORT"], user=db["USER"], dbname="postgres", autocommit=True
    ) as server:
        server.execute(f"CREATE DATABASE {configured}")
    try:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{configured}",
            "TEST_DATABASE_NAME": test_name,
            "TEST_CACHE_PREFIX": test_name,
        }
        for inherited in [k for k in env if k.startswith(("PYTEST_", "COV_CORE_"))]:
            del env[inherited]  # the outer run's worker and coverage: the inner run is its own
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "-n",
                "1",  # one xdist worker: it clones, and drops at its end, as each of many does
                "tests/replays/test_store.py::test_read_between_versions",
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert " passed" in done.stdout
        assert _databases(f"dbkeep_%{tag}%") == {configured}
    finally:
        with psycopg.connect(
            host=db["HOST"], port=db["PORT"], user=db["USER"], dbname="postgres", autocommit=True
        ) as server:
            for name in _databases(f"dbkeep_%{tag}%"):
                server.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
