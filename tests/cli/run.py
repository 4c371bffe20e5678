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


def documented(
    line: str, *, config: Path, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """A command as docs/cli.md shows it, run by bash with ``backroom`` on the PATH (the
    console script ``pip install .`` writes: ``python -m backroom_cli``)."""
    bin_dir = cwd / ".bin"
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / "backroom"
    script.write_text(f'#!/bin/sh\nexec {sys.executable} -m backroom_cli "$@"\n')
    script.chmod(0o755)
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    base.pop("BACKROOM_SERVER", None)
    full = {**base, **(env or {}), "XDG_CONFIG_HOME": str(config)}
    full["PATH"] = f"{bin_dir}:{full.get('PATH', '')}"
    return subprocess.run(
        ["bash", "-c", line], env=full, cwd=cwd, capture_output=True, text=True, timeout=240
    )


def doc_commands(first: tuple[str, ...]) -> list[str]:
    """docs/cli.md's commands whose subcommand is one of ``first``, in order."""
    from tests.deploy.docs import commands

    return [c for c in commands("cli.md") if c.split()[1] in first]


def doc_bot() -> str:
    """The bot docs/cli.md shows (its python block)."""
    import re

    from tests.deploy.docs import ROOT

    [bot] = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "cli.md").read_text(), re.S)
    return bot
