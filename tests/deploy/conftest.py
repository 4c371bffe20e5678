"""Shared by the deploy/ tests: static files collected once, as the image collects them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PRODUCTION = {
    "DJANGO_SETTINGS_MODULE": "config.settings.production",
    "SECRET_KEY": "a-long-random-production-secret-value-0123456789-for-tests",
    "ALLOWED_HOSTS": "backroom.example",
}


@pytest.fixture(scope="session")
def collected_static(tmp_path_factory: pytest.TempPathFactory) -> Path:
    static = tmp_path_factory.mktemp("static")
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--no-input", "--verbosity", "0"],
        cwd=ROOT,
        env={**os.environ, **PRODUCTION, "STATIC_ROOT": str(static)},
        check=True,
        timeout=120,
    )
    return static
