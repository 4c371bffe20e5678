"""Real Celery workers, started as subprocesses against the test database and the real broker.

The harness itself is tests/support/processes.py (shared with tests/faults and tests/deploy);
these names stay importable from here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from tests.support.processes import (
    ROOT,
    Processes,
    Worker,
    all_queues,
    platform_env,
    wait_until,
)

__all__ = ["ROOT", "Worker", "_env", "all_queues", "start_worker", "wait_until"]


def _env(lease_seconds: int) -> dict[str, str]:
    """The worker's environment: this run's test database and this run's queues."""
    return platform_env(lease_seconds)


@pytest.fixture
def start_worker(processes: Processes) -> Callable[..., Worker]:
    """Start a real worker (solo pool) on the test database; stopped after the test."""

    def start(
        lease_seconds: int = 60,
        under: Sequence[str] = (),
        pool: Sequence[str] = ("--pool", "solo"),
    ) -> Worker:
        """``under``: a command the worker runs under (e.g. a seccomp profile's loader);
        ``pool``: its pool options (the compose file's worker is prefork, its default)."""
        return processes.worker(platform_env(lease_seconds), under=under, pool=pool, prefix="e2e")

    return start
