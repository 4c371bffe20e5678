"""Runs the ``backroom`` command as an author would: a process of its own, with its own config
folder, and without Django's settings in its environment (it needs none)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def backroom(
    *args: str,
    config: Path,
    cwd: Path | None = None,
    stdin: str | None = None,
    timeout: float = 240,
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env["XDG_CONFIG_HOME"] = str(config)
    env.pop("BACKROOM_SERVER", None)
    return subprocess.run(
        [sys.executable, "-m", "backroom_cli", *args],
        env=env,
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
