"""Shared by the deploy/ tests: static files collected once, as the image collects them."""

from __future__ import annotations

import fcntl
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.e2e.conftest import start_worker  # noqa: F401 (a fixture test_isolation uses)
from tests.tournaments.conftest import builtin_match  # noqa: F401 (a fixture test_backup uses)

ROOT = Path(__file__).resolve().parents[2]

PRODUCTION = {
    "DJANGO_SETTINGS_MODULE": "config.settings.production",
    "SECRET_KEY": "a-long-random-production-secret-value-0123456789-for-tests",
    "ALLOWED_HOSTS": "backroom.example",
}


def dockerfile_collectstatic() -> tuple[dict[str, str], list[str]]:
    """The environment and command of deploy/Dockerfile's collectstatic step."""
    text = (ROOT / "deploy" / "Dockerfile").read_text().replace("\\\n", " ")
    runs = [line[4:] for line in text.splitlines() if line.startswith("RUN ")]
    [step] = [s for r in runs for s in r.split("&&") if "collectstatic" in s]
    words = shlex.split(step)
    env = dict(w.split("=", 1) for w in words if re.match(r"^[A-Z_]+=", w))
    return env, [w for w in words if not re.match(r"^[A-Z_]+=", w)]


@pytest.fixture(scope="session")
def collected_static(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Static files collected by the image's own collectstatic step, run here once per run.

    Compressing some 1,000 files costs about 35 s of CPU: the xdist workers that need them
    (test_files, test_gunicorn) share one folder under the run's common temporary root, the
    first to come collecting while the others wait on its lock."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the run's own root, above each worker's (popen-gwN)
    static, done = shared / "collected-static", shared / "collected-static.done"
    with (shared / "collected-static.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            env, command = dockerfile_collectstatic()
            command[0] = str(ROOT / command[0])
            subprocess.run(
                command,
                cwd=ROOT,
                env={**os.environ, **env, "STATIC_ROOT": str(static)},
                check=True,
                timeout=600,
            )
            done.touch()
    return static
