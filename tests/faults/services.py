"""Postgres, Redis and RabbitMQ instances of a fault test's own, which it may stop and start.

Each runs from the machine's binaries on a port of its own, with its data under a
temporary directory, so a test can take it down without touching the shared
services every other suite uses. As root, Postgres and RabbitMQ run as their own
system users (initdb refuses root; RabbitMQ's cookie belongs to its user).
A missing binary skips the test with the reason, except under CI, where it fails.

Redis and RabbitMQ run under the one process harness (``Proc``, tests/support/processes.py):
their output kept, their process group stopped whatever happens. Postgres does not: ``pg_ctl
start`` runs the server as a daemon outside any group of ours and returns once it accepts
connections, and ``pg_ctl stop`` is how it is stopped; both are commands run to their end.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.processes import Proc, free_port, wait_for_port

__all__ = ["OwnPostgres", "OwnRabbit", "OwnRedis", "need"]


def need(binary: str | None, what: str) -> str:
    """The binary's path; skips (fails under CI) when it is not installed."""
    if binary and Path(binary).exists():
        return binary
    message = f"{what} is not installed here; the fault tests need it"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def _as(user: str) -> list[str]:
    """Run as ``user`` when we are root (the services refuse or misbehave as root)."""
    return ["runuser", "-u", user, "--"] if os.geteuid() == 0 else []


def _own(path: Path, user: str) -> None:
    if os.geteuid() == 0:
        shutil.chown(path, user)


class OwnPostgres:
    """A Postgres cluster made with initdb in ``root``, stopped and started with pg_ctl.

    ``standby_of`` (a running cluster): a streaming replica of it instead, copied with
    pg_basebackup (``-R``: it starts in recovery, streaming from that primary, open to reads).
    initdb's trust rules let loopback connections replicate, and ``wal_level`` is ``replica``
    by default, so any of these clusters can be a primary."""

    def __init__(self, root: Path, name: str = "pg", standby_of: OwnPostgres | None = None) -> None:
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
        bindir = Path(need(found[-1] if found else shutil.which("pg_ctl"), "PostgreSQL")).parent
        self.pg_ctl, self.initdb = str(bindir / "pg_ctl"), str(bindir / "initdb")
        self.root = root / name
        self.root.mkdir()
        _own(self.root, "postgres")
        self.data = self.root / "data"
        self.port = free_port()
        if standby_of is None:
            made = [self.initdb, "-D", str(self.data), "-A", "trust", "-U", "postgres"]
        else:
            made = [
                str(bindir / "pg_basebackup"),
                *("-h", "127.0.0.1", "-p", str(standby_of.port), "-U", "postgres"),
                *("-D", str(self.data), "-R", "-X", "stream", "--checkpoint", "fast"),
            ]
        subprocess.run([*_as("postgres"), *made, "--no-sync"], check=True, capture_output=True)

    def url(self, database: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
            " -c full_page_writes=off -c synchronous_commit=off"
        )
        subprocess.run(
            [
                *_as("postgres"),
                self.pg_ctl,
                "-D",
                str(self.data),
                "-o",
                options,
                "-l",
                str(self.root / "log"),
                "-w",
                "start",
            ],
            check=True,
            capture_output=True,
        )

    def stop(self) -> None:
        """A fast shutdown: every open connection is cut, as in a crash or a failover."""
        subprocess.run(
            [*_as("postgres"), self.pg_ctl, "-D", str(self.data), "-m", "fast", "-w", "stop"],
            check=False,
            capture_output=True,
        )


class OwnRedis:
    def __init__(self, root: Path) -> None:
        self.binary = need(shutil.which("redis-server"), "redis-server")
        self.root, self.port = root, free_port()
        self.process: Proc | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = Proc(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.root),
            ],
            name="redis-server",
            cwd=self.root,
        )
        wait_for_port(self.port, 10, "redis-server")

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop(grace=10)
        self.process = None


class OwnRabbit:
    """A second RabbitMQ node (its own name, ports, database, config, no plugins)."""

    def __init__(self, root: Path) -> None:
        # The real script, not Debian's /usr/sbin wrapper (which only root or rabbitmq may run).
        need(shutil.which("rabbitmq-server"), "RabbitMQ")
        self.server = need("/usr/lib/rabbitmq/bin/rabbitmq-server", "RabbitMQ's server script")
        self.ctl = str(Path(self.server).parent / "rabbitmqctl")
        self.root = root / "mq"
        self.root.mkdir()
        self.port, self.dist_port = free_port(), free_port()
        self.node = f"faults{self.port}@localhost"
        (self.root / "rabbitmq.conf").write_text(f"listeners.tcp.local = 127.0.0.1:{self.port}\n")
        (self.root / "enabled_plugins").write_text("[].\n")
        for path in [self.root, *self.root.iterdir()]:
            _own(path, "rabbitmq")
        self.process: Proc | None = None

    @property
    def url(self) -> str:
        return f"amqp://guest:guest@127.0.0.1:{self.port}//"

    def _env(self) -> dict[str, str]:
        home = "/var/lib/rabbitmq" if os.geteuid() == 0 else os.environ.get("HOME", "/tmp")
        return {
            "PATH": os.environ["PATH"],
            "HOME": home,
            "RABBITMQ_NODENAME": self.node,
            "RABBITMQ_NODE_PORT": str(self.port),
            "RABBITMQ_DIST_PORT": str(self.dist_port),
            "RABBITMQ_MNESIA_BASE": str(self.root / "mnesia"),
            "RABBITMQ_LOG_BASE": str(self.root / "log"),
            "RABBITMQ_CONFIG_FILE": str(self.root / "rabbitmq.conf"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": str(self.root / "enabled_plugins"),
            "RABBITMQ_PID_FILE": str(self.root / "pid"),
        }

    def start(self) -> None:
        self.process = Proc(
            [*_as("rabbitmq"), "env", *[f"{k}={v}" for k, v in self._env().items()], self.server],
            name="RabbitMQ",
            cwd=self.root,
        )
        wait_for_port(self.port, 60, "RabbitMQ")

    def stop(self) -> None:
        """Stop the node; its durable queues and persistent messages are kept on disk."""
        if self.process is None:
            return
        subprocess.run(
            [
                *_as("rabbitmq"),
                "env",
                *[f"{k}={v}" for k, v in self._env().items()],
                self.ctl,
                "-n",
                self.node,
                "stop",
            ],
            check=False,
            capture_output=True,
            timeout=180,  # a bound only: stopping a node took over a minute at load 18
        )
        self.process.wait_exit(30)
        self.process.kill()  # whatever is left of it: nothing, once it stopped
        self.process = None
        wait_for_port(self.port, 10, "RabbitMQ", up=False)
