"""make up / make test stop at once, one line per unreachable service, naming how to start it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.processes import free_port

SCRIPT = Path(__file__).resolve().parents[1] / "deploy" / "check_services.py"


def run(**env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_all_services_up_passes_silently() -> None:
    result = run()
    assert (result.returncode, result.stderr) == (0, "")


def test_an_unreachable_broker_is_one_line_with_its_address_and_start_command() -> None:
    port = free_port()  # nothing listens once its socket is closed
    result = run(CELERY_BROKER_URL=f"amqp://guest:guest@127.0.0.1:{port}//")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert f"RabbitMQ is not reachable at 127.0.0.1:{port}" in lines[0]
    assert "rabbitmq-server -detached" in lines[0]
