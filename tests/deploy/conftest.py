"""Shared by the deploy/ tests: static files collected once, as the image collects them."""

from __future__ import annotations

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
    """Static files collected by the image's own collectstatic step, run here."""
    static = tmp_path_factory.mktemp("static")
    env, command = dockerfile_collectstatic()
    command[0] = str(ROOT / command[0])
    subprocess.run(
        command,
        cwd=ROOT,
        env={**os.environ, **env, "STATIC_ROOT": str(static)},
        check=True,
        timeout=180,
    )
    return static
