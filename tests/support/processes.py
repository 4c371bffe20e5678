"""One harness for the tests that start real processes: Celery workers and beat (also on the
network namespaces of tests/e2e/test_multihost.py), gunicorn, honcho, and the fault tests' own
Redis and RabbitMQ (tests/faults/services.py; their Postgres is pg_ctl's, which says why).

``processes`` (the fixture) starts what a test asks for and always stops it after the test, even
when the test fails. Each process leads a session of its own (``start_new_session``), so its
group is everything it started; the harness signals that group only while the leader is not yet
reaped, when its id cannot belong to anybody else (a reaped leader's id may be reused: signalling
it then could hit a stranger). Nothing is ever killed by name.

``wait_until`` polls a condition and fails with what it saw and the logs of the processes it
was handed (``wait_for_port`` waits for a port so); ``free_port`` picks a free loopback port.
Under pytest-xdist each worker (gw0, gw1, ...) has its own queues, cache prefix, media folder
and test database (config/settings/test.py), and ``platform_env`` hands exactly those to the
processes a test starts.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Protocol

import pytest
from django.conf import settings
from django.db import connection

from tests.support import ROOT

BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def listening(port: int) -> bool:
    """Whether something accepts connections on loopback ``port``."""
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def wait_for_port(
    port: int, timeout: float, what: str, *logs: HasLog | None, up: bool = True
) -> None:
    """Wait until ``port`` listens (``up``) or no longer does; fail with the processes' logs."""
    wait_until(
        lambda: listening(port) == up,
        timeout,
        f"{what} to {'start' if up else 'stop'} on port {port}",
        *logs,
    )


class HasLog(Protocol):
    @property
    def log(self) -> str: ...


def wait_until(
    condition: Callable[[], bool],
    timeout: float,
    what: str,
    *logs: HasLog | None,
    seen: Callable[[], object] | None = None,
) -> None:
    """Poll ``condition`` until it holds; past ``timeout`` s fail with what ``seen`` returns
    then (the state the condition looked at) and the processes' logs.

    Every 50 ms at first, then less often, down to every 250 ms: a condition is often a few
    ORM queries, traced by coverage: at 100 ms the ladder test's wait cost 5 s of CPU
    in 73 s, now under 1 s in 40-58 s (2026-12-02, load 7-12). The conditions waited on here last seconds once they hold (a
    match under way, a round played), so a quarter of a second never misses one."""
    deadline = time.monotonic() + timeout
    pause = 0.05
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(pause)
        pause = min(pause * 1.5, 0.25)
    saw = f"; saw {seen()!r}" if seen is not None else ""
    shown = "".join(f"\n--- log:\n{p.log[-6000:]}" for p in logs if p is not None)
    pytest.fail(f"timed out waiting for {what} ({timeout:.0f} s){saw}{shown}")


class Proc:
    """A process leading its own group, whose output (stdout and stderr) the test keeps."""

    def __init__(
        self,
        args: Sequence[str],
        env: dict[str, str] | None = None,
        ready: str | None = None,
        name: str = "",
        cwd: Path = ROOT,
    ) -> None:
        """``env`` None: this process's environment."""
        self.process = subprocess.Popen(
            list(args),
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.name = name
        self.lines: list[str] = []
        self.ready = threading.Event()
        self._marker = ready
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        if self.process.stdout is None:
            return
        for line in self.process.stdout:
            self.lines.append(line)
            if self._marker is not None and self._marker in line:
                self.ready.set()

    @property
    def log(self) -> str:
        return "".join(self.lines)

    def _exited(self) -> bool:
        """Whether the leader has exited, without reaping it (its id stays ours)."""
        if self.process.returncode is not None:
            return True
        try:
            return (
                os.waitid(os.P_PID, self.process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
                is not None
            )
        except ChildProcessError:
            return True

    def wait_exit(self, timeout: float) -> bool:
        """Whether the leader exits within ``timeout`` s (of itself: nothing is sent)."""
        deadline = time.monotonic() + timeout
        while not self._exited():
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)
        return True

    def signal_group(self, sig: int) -> None:
        """``sig`` to the whole group, while the leader is unreaped (so the id is still ours)."""
        if self.process.returncode is not None:
            return  # reaped: the id may be somebody else's by now
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)

    def terminate(self) -> None:
        self.signal_group(signal.SIGTERM)

    def kill(self) -> None:
        """SIGKILL the process and everything it started, as a crash would; then its output
        is read to the end (the pipe closes once the last of the group is gone)."""
        self.signal_group(signal.SIGKILL)
        self.process.wait(10)
        self._reader.join(10)

    def stop(self, grace: float = 15) -> None:
        """SIGTERM to the group; SIGKILL to whatever is left of it after ``grace`` s (or once
        the leader is gone: its children must not outlive it); then reap the leader."""
        self.terminate()
        self.wait_exit(grace)
        self.kill()


# The e2e tests' name for a worker: the same class.
Worker = Proc


def platform_env(lease_seconds: int = 60, **overrides: str) -> dict[str, str]:
    """A platform process's environment: this xdist worker's test database, queues, cache
    prefix and media folder, then ``overrides``."""
    db = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "MATCH_LEASE_SECONDS": str(lease_seconds),
        "TEST_QUEUE_PREFIX": settings.TEST_QUEUE_PREFIX,
        "TEST_CACHE_PREFIX": settings.CACHES["default"]["KEY_PREFIX"],
        # The same queue names when a process runs base settings (the test ones follow the prefix).
        "CELERY_DEFAULT_QUEUE": settings.CELERY_TASK_DEFAULT_QUEUE,
        "MATCH_QUEUE": settings.MATCH_QUEUE,
        "VALIDATION_QUEUE": settings.VALIDATION_QUEUE,
        "PEOPLE_QUEUE": settings.PEOPLE_QUEUE,
        "RATINGS_QUEUE": settings.RATINGS_QUEUE,
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
    }
    env.update(overrides)
    return env


def all_queues() -> str:
    """Every queue of this run, as ``--queues`` takes them: a worker here does every kind of work."""
    return ",".join(q.name for q in settings.CELERY_TASK_QUEUES)


def worker_args(queues: str, name: str, pool: Sequence[str] = ("--pool", "solo")) -> list[str]:
    return [
        str(BIN / "celery"),
        "-A",
        "config",
        "worker",
        *pool,
        "--queues",
        queues,
        "--loglevel",
        "INFO",
        "--hostname",
        name,
        "--without-mingle",
        "--without-gossip",
    ]


class Processes:
    """What one test started; ``stop_all`` stops every one of them (their shutdowns overlap)."""

    def __init__(self) -> None:
        self.procs: list[Proc] = []

    def start(
        self,
        args: Sequence[str],
        env: dict[str, str] | None = None,
        ready: str | None = None,
        what: str = "process",
        timeout: float = 90,
        cwd: Path = ROOT,
    ) -> Proc:
        """Start ``args``; with ``ready``, wait up to ``timeout`` s for that text in its output."""
        proc = Proc(args, env if env is not None else platform_env(), ready, what, cwd)
        self.procs.append(proc)
        if ready is not None and not proc.ready.wait(timeout):
            proc.kill()
            pytest.fail(f"{what} did not start:\n{proc.log[-4000:]}")
        return proc

    def worker(
        self,
        env: dict[str, str] | None = None,
        queues: str | None = None,
        under: Sequence[str] = (),
        pool: Sequence[str] = ("--pool", "solo"),
        prefix: str = "test",
        timeout: float = 90,
    ) -> Proc:
        """A real Celery worker (solo pool unless ``pool``) on this run's queues; ``under``: a
        command the worker runs under (e.g. a seccomp profile's loader)."""
        name = f"{prefix}-{uuid.uuid4().hex[:6]}@%h"
        args = [*under, *worker_args(queues or all_queues(), name, pool)]
        proc = self.start(args, env, " ready.", "worker", timeout)
        proc.name = name  # its Celery node name (a health check pings it by that name)
        return proc

    def beat(
        self, env: dict[str, str] | None = None, schedule: Path | None = None, max_interval: int = 1
    ) -> Proc:
        args = [str(BIN / "celery"), "-A", "config", "beat", "--loglevel", "INFO"]
        if schedule is not None:
            args += ["--schedule", str(schedule)]
        args += ["--max-interval", str(max_interval)]
        return self.start(args, env, "beat: Starting", "beat")

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
        return self.start(args, env, "Booting worker", "web")

    def stop_all(self, grace: float = 5) -> None:
        for proc in self.procs:
            proc.terminate()
        deadline = time.monotonic() + grace
        for proc in self.procs:
            proc.stop(grace=max(0.1, deadline - time.monotonic()))


@pytest.fixture
def processes() -> Iterator[Processes]:
    """Processes started for this test, all stopped after it; this run's queues purged first
    (messages of earlier tests point at rows that no longer exist)."""
    from config.celery import app

    app.control.purge()
    started = Processes()
    try:
        yield started
    finally:
        started.stop_all()
