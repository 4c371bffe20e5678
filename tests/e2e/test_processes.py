"""The Procfile that `make up` runs: web serves the admin and the schema, the worker and beat connect."""

from __future__ import annotations

import sys
import urllib.request
import uuid
from pathlib import Path

import pytest

from tests.e2e.conftest import _env
from tests.support.processes import Processes, free_port, wait_until

BIN = Path(sys.executable).parent

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return int(response.status)
    except Exception:
        return 0


def test_web_worker_and_beat_start_and_connect(processes: Processes) -> None:
    port = free_port()
    # The Procfile runs the programs of this interpreter's environment.
    # A node name of its own: two suites on one host must not share a worker's control queue.
    env = {
        **_env(lease_seconds=60),
        "WEB_PORT": str(port),
        "VENV_BIN": str(BIN),
        "WORKER_NAME": f"procfile-{uuid.uuid4().hex[:8]}@%h",
    }
    honcho = processes.start(
        [str(BIN / "honcho"), "--procfile", "deploy/Procfile", "--app-root", ".", "start"],
        env,
        what="honcho",
    )
    lines = honcho.lines
    base = f"http://127.0.0.1:{port}"
    wanted = {
        "admin": lambda: status(f"{base}/admin/login/") == 200,
        "schema": lambda: status(f"{base}/api/schema/") == 200,
        "worker": lambda: any(" worker.1 " in line and " ready." in line for line in lines),
        # The worker kept for people's matches, on this run's people queue alone.
        "people": lambda: any(" people.1 " in line and " ready." in line for line in lines),
        "beat": lambda: any("beat" in line and "beat: Starting" in line for line in lines),
    }

    def all_up() -> bool:
        for name in [name for name, check in wanted.items() if check()]:
            del wanted[name]
        return not wanted

    wait_until(all_up, 90, "the Procfile's processes up", honcho, seen=lambda: sorted(wanted))
    with urllib.request.urlopen(f"{base}/api/schema/", timeout=5) as response:
        assert b"openapi: 3" in response.read()
