"""The suite's own parallelism keeps a group on one worker: with pytest 9.2, pytest-xdist 3.8's
``--dist loadgroup`` silently stopped grouping (pytest-dev/pytest-xdist#1386), and each module
that starts the platform's processes, which tests/conftest.py groups, ran on several workers."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support.processes import free_port

ROOT = Path(__file__).resolve().parents[1]

GROUPED = """
import pytest

pytestmark = pytest.mark.xdist_group("together")


@pytest.mark.parametrize("n", range(4))
def test_{name}(n):
    pass
"""


def test_loadgroup_runs_a_group_on_one_worker(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / f"test_{name}.py").write_text(GROUPED.format(name=name))
    (tmp_path / "none.ini").write_text("[pytest]\n")  # not the project's settings
    # Only pytest and xdist, whose pairing is what broke: the other installed plugins (locust,
    # schemathesis, ...) cost each of the three processes seconds of imports (10 s of CPU of
    # the test's 11 with them, 1.6 s without, 2026-12-02).
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "xdist", "-n", "2", "--dist", "loadgroup", "-v",
         "-p", "no:cacheprovider", "-c", str(tmp_path / "none.ini"), str(tmp_path)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:]
    workers = set(re.findall(r"\[(gw\d+)\] \[\s*\d+%\] PASSED", done.stdout))
    assert len(re.findall(r"PASSED", done.stdout)) == 8
    assert len(workers) == 1, done.stdout[-2000:]


def test_hypothesis_is_never_timed_and_ci_draws_the_same_examples() -> None:
    from hypothesis import HealthCheck, settings

    # A deadline or the too-slow check fails a test for the machine's load, not for a change.
    current = settings()
    assert current.deadline is None
    assert HealthCheck.too_slow in current.suppress_health_check
    assert current.derandomize == ("CI" in os.environ)
    assert 'export CI="${CI:-1}"' in (Path(__file__).parents[1] / ".ci" / "run").read_text()


CLONED = """
import json
import os

from django.db import connection


def test_{name}(db):
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM django_migrations")
        (applied,) = cursor.fetchone()
        cursor.execute("SHOW synchronous_commit")
        assert cursor.fetchone() == ("off",)
        cursor.execute("SELECT datname FROM pg_database WHERE datname LIKE %s", ["{base}%"])
        names = sorted(n for (n,) in cursor.fetchall())
    with open(os.environ["SEEN"], "a") as seen:  # xdist's workers' output is not shown
        seen.write(json.dumps([connection.settings_dict["NAME"], applied, names]) + "\\n")
"""


def test_each_worker_has_a_migrated_clone_and_the_run_leaves_no_template(
    tmp_path: Path, db: None
) -> None:
    base = f"test_tpl_{os.getpid()}"
    for name in ("a", "b", "c", "d"):
        (tmp_path / f"test_{name}.py").write_text(CLONED.format(name=name, base=base))
    (tmp_path / "none.ini").write_text("[pytest]\n")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "xdist", "-p", "pytest_django.plugin",
         "-p", "tests.support.database", "-n", "2", "-p", "no:cacheprovider",
         "-c", str(tmp_path / "none.ini"), str(tmp_path)],
        capture_output=True, text=True, timeout=240, cwd=Path(__file__).parents[1],
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "TEST_DATABASE_NAME": base,
             "DJANGO_SETTINGS_MODULE": "config.settings.test", "SEEN": str(tmp_path / "seen")},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:]
    seen = [json.loads(line) for line in (tmp_path / "seen").read_text().splitlines()]
    assert len(seen) == 4 and {name for name, _, _ in seen} == {f"{base}_gw0", f"{base}_gw1"}
    # Every migration applied in each clone, which the run's one template held meanwhile.
    assert len({applied for _, applied, _ in seen}) == 1 and seen[0][1] > 30
    assert all(any(n.startswith(f"{base}_template_") for n in names) for _, _, names in seen)
    from django.db import connection

    with connection.cursor() as cursor:  # and the run dropped them all
        cursor.execute("SELECT datname FROM pg_database WHERE datname LIKE %s", [f"{base}%"])
        assert cursor.fetchall() == []


def test_the_unit_tier_runs_in_parallel_with_no_database_server() -> None:
    # `make test-fast` promises no service at all: the xdist controller's template cleanup must
    # not need Postgres. A port nothing listens on stands for a machine without it.
    closed = free_port()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "-m", "unit",
         "tests/test_bytecode.py::test_the_installed_packages_are_compiled"],
        capture_output=True, text=True, timeout=180, cwd=ROOT,
        env={**os.environ, "DATABASE_URL": f"postgres://postgres@127.0.0.1:{closed}/nowhere"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "3 passed" in done.stdout
