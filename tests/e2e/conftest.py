"""Real Celery workers, started as subprocesses against the test database and the real broker."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


class Worker:
    def __init__(self, process: subprocess.Popen[str], name: str) -> None:
        self.process, self.name = process, name
        self.lines: list[str] = []
        self.ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)
            if " ready." in line:
                self.ready.set()

    def kill(self) -> None:
        """SIGKILL the worker and everything it started, as a crash would."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()

    @property
    def log(self) -> str:
        return "".join(self.lines)


def _env(lease_seconds: int) -> dict[str, str]:
    """The worker's environment: this run's test database and this run's queues."""
    db = connection.settings_dict
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "MATCH_LEASE_SECONDS": str(lease_seconds),
        "TEST_QUEUE_PREFIX": settings.TEST_QUEUE_PREFIX,
        # The same queue names when a process runs base settings (the test ones follow the prefix).
        "CELERY_DEFAULT_QUEUE": settings.CELERY_TASK_DEFAULT_QUEUE,
        "MATCH_QUEUE": settings.MATCH_QUEUE,
        "VALIDATION_QUEUE": settings.VALIDATION_QUEUE,
        "PEOPLE_QUEUE": settings.PEOPLE_QUEUE,
        "RATINGS_QUEUE": settings.RATINGS_QUEUE,
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
    }


def all_queues() -> str:
    """Every queue of this run, as ``--queues`` takes them: a worker here does every kind of work."""
    return ",".join(q.name for q in settings.CELERY_TASK_QUEUES)


@pytest.fixture
def start_worker() -> Iterator[Callable[..., Worker]]:
    """Start a real worker (solo pool) on the test database; stopped after the test."""
    from config.celery import app

    # This run's queues only: messages from earlier tests point at matches that no longer exist.
    app.control.purge()
    workers: list[Worker] = []

    def start(
        lease_seconds: int = 60,
        under: Sequence[str] = (),
        pool: Sequence[str] = ("--pool", "solo"),
    ) -> Worker:
        """``under``: a command the worker runs under (e.g. a seccomp profile's loader);
        ``pool``: its pool options (the compose file's worker is prefork, its default)."""
        name = f"e2e-{uuid.uuid4().hex[:6]}@%h"
        process = subprocess.Popen(
            [
                *under,
                str(Path(sys.executable).parent / "celery"),
                "-A",
                "config",
                "worker",
                *pool,
                "--queues",
                all_queues(),
                "--loglevel",
                "INFO",
                "--hostname",
                name,
                "--without-mingle",
                "--without-gossip",
            ],
            cwd=ROOT,
            env=_env(lease_seconds),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        worker = Worker(process, name)
        workers.append(worker)
        if not worker.ready.wait(60):
            worker.kill()
            pytest.fail(f"worker did not start:\n{worker.log}")
        return worker

    yield start
    for worker in workers:
        worker.stop()


def wait_until(
    condition: Callable[[], bool], timeout: float, what: str, worker: Worker | None = None
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    log = f"\nworker log:\n{worker.log[-5000:]}" if worker else ""
    pytest.fail(f"timed out waiting for {what}{log}")
