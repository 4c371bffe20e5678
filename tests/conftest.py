"""Fixtures shared by the whole suite. Tests talk to the real Postgres, RabbitMQ and Redis.

Tiers, marked here on every test from what it asks for (`make test-fast` runs the first, with no
services at all; `make test-services` all but the last; `make test` all three):

- ``unit``: no database, no subprocess: pure Python. A guard fails such a test loudly if it
  starts a process (pytest-django already refuses it the database).
- ``services``: the database, the broker, Redis, or a subprocess (a sandboxed bot, manage.py).
- ``processes`` (also ``services``): starts the platform's own processes (Celery workers, beat,
  gunicorn, honcho) or services of its own (tests/faults): the long ones.

Under pytest-xdist (`make test`), ``--dist loadgroup`` sends every test of a module that
starts processes to one worker as a group (they share module-scoped services and a stale
worker of one must not take another's tasks); groups of more tests are sent first, then the
costliest (see pytest_collection_modifyitems).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

pytest_plugins = [
    "tests.support.processes",
    "tests.support.database",
    "tests.support.flush",
    "tests.support.live_server",
    "tests.support.no_cover",
    "tests.support.prewarm",
    "tests.support.untraced",
]

# No run of the suite times hypothesis (a timing check is a flake on a shared machine: a fresh
# clone failed "input generation is slow" on one 3 s draw under load, and the README's rule is
# no timing in tests); the examples are the same and all run. CI (`.ci/run` sets CI) explores the
# same examples on every run, so that a red build always means a change broke something;
# developers' runs keep exploring new ones.
settings.register_profile("untimed", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "ci", parent=settings.get_profile("untimed"), derandomize=True, print_blob=True
)
settings.load_profile("ci" if "CI" in os.environ else "untimed")

# Fixtures that start platform processes or services of a test's own.
PROCESS_FIXTURES = {
    "processes",
    "start_worker",
    "stack",
    "worker_and_beat",
    "own_postgres",
    "own_rabbit",
    "own_redis",
    "start_gunicorn",
    "collected_static",
    "hosts",
}
DB_FIXTURES = {
    "db",
    "transactional_db",
    "django_db_reset_sequences",
    "django_db_serialized_rollback",
}
# Where tests start subprocesses (manage.py, a sandboxed bot, uv, pip-audit) without a fixture
# that says so: found by the unit guard below, which fails a 'unit' test that starts one.
SUBPROCESS_PATHS = (
    "tests/games/sandbox/",
    "tests/deploy/",
    "tests/e2e/",
    "tests/faults/",
    "tests/api/test_schema.py",
    "tests/games/test_game_package.py",
    "tests/test_dependency_audit.py",
    "tests/test_layout.py",
    "tests/test_packaging.py",
    "tests/test_services_check.py",
    "tests/test_settings.py",
    "tests/test_suite_groups.py",
    "tests/test_cputime.py",
    "tests/tournaments/test_dispatch.py",
    "tests/tournaments/test_play_command.py",
    "tests/tournaments/test_readme.py",
    "tests/tournaments/test_simulate_command.py",
)

# Seconds a module's tests took on one worker (measured: `pytest --durations=0`, 2 cores),
# roughly: xdist hands out the longest groups first so that none starts last.
COSTLIEST = {
    "tests/e2e/test_ladders_and_seasons.py": 300,
    "tests/faults/test_rabbitmq_restart.py": 250,
    "tests/faults/test_postgres_restart.py": 200,
    "tests/faults/test_two_beats.py": 150,
    "tests/faults/test_web_outage.py": 150,
    "tests/deploy/test_isolation.py": 150,
    "tests/faults/test_duplicate_delivery.py": 120,
    "tests/e2e/test_worker_fault.py": 100,
    "tests/e2e/test_multihost.py": 100,
    "tests/e2e/test_challenge.py": 80,
    "tests/cli/test_live_server.py": 80,
    "tests/e2e/test_fair_workers.py": 80,
    "tests/e2e/test_author_browser.py": 70,
    "tests/deploy/test_gunicorn.py": 80,
    "tests/faults/test_replica.py": 100,
}
# Long single tests (test_fuzz, 70 s) are not listed: handed out first, beside the process groups,
# they stretched those groups' wall, and the servers and polling loops of a process test cost CPU
# by the second: user CPU of a fresh-clone run rose from 10 min 16 s to 11 min 0 s and 12 min 12 s
# (2026-12-03), with no idle tail to win back (every worker was busy to the end).


def _tier(item: pytest.Item) -> str:
    names = set(getattr(item, "fixturenames", ()))
    path = item.nodeid.split("::")[0]
    if (
        names & PROCESS_FIXTURES
        or item.get_closest_marker("e2e")
        or item.get_closest_marker("faults")
        or item.get_closest_marker("processes")
    ):
        return "processes"
    if (
        names & DB_FIXTURES
        or item.get_closest_marker("django_db")
        or item.get_closest_marker("services")
        or path.startswith(SUBPROCESS_PATHS)
    ):
        return "services"
    return "unit"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        tier = _tier(item)
        item.add_marker(tier)
        if tier == "processes":
            item.add_marker("services")
            path = item.nodeid.split("::")[0]
            # One module's process tests on one worker, one after the other.
            item.add_marker(pytest.mark.xdist_group(path.replace("/", ".")))
    # The costliest modules first (stable otherwise). xdist's loadgroup then reorders the work
    # units by their number of tests (--loadscope-reorder, its default): every group of two or
    # more tests (the process groups, the access matrix's) is handed out before any single test,
    # so this order decides only among groups of as many tests, and among the single tests
    # (2026-12-02, pytest-xdist 3.8).
    items.sort(key=lambda i: -COSTLIEST.get(i.nodeid.split("::")[0], 0))


class UnitTestStartedAProcess(AssertionError):
    pass


@pytest.fixture(autouse=True)
def _unit_guard(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A test marked ``unit`` must not start a process: it would belong to ``services``."""
    if request.node.get_closest_marker("unit") is None:
        yield
        return

    def refuse(self: Any, args: Any, *a: Any, **kw: Any) -> None:
        raise UnitTestStartedAProcess(
            f"{request.node.nodeid} is tiered 'unit' but started {args!r}: mark it "
            "@pytest.mark.services (tests/conftest.py)"
        )

    monkeypatch.setattr(subprocess.Popen, "_execute_child", refuse)
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Captured output with a lone surrogate (a test of escaping them logs one) could not be
    sent from an xdist worker (UTF-8 refuses it): it is sent escaped."""
    outcome = yield
    report = outcome.get_result()
    report.sections = [
        (title, text.encode("utf-8", "backslashreplace").decode("utf-8"))
        for title, text in report.sections
    ]
