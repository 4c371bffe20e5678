"""Staged copies: each is owned by a live process (a lock), and dead processes' copies are cleaned."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from games.sandbox import isolation

from .conftest import modes

REPO = Path(__file__).resolve().parents[3]
STAGE_AND_WAIT = """
import sys, time
from pathlib import Path
from games.sandbox import isolation
print(isolation.stage(Path(sys.argv[1])), flush=True)
time.sleep(60)
"""


@pytest.fixture(autouse=True)
def own_temp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A staging root of this test's own: cleaning never sees other runs' copies."""
    (tmp_path / "tmp").mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))


def staged_by_a_process(bot: Path) -> tuple[subprocess.Popen[str], Path]:
    proc = subprocess.Popen(
        [sys.executable, "-c", STAGE_AND_WAIT, str(bot)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    assert proc.stdout is not None
    return proc, Path(proc.stdout.readline().strip())


def test_a_killed_processs_copies_are_cleaned_and_live_ones_kept(tmp_path: Path) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.py").write_text("def act(o, l):\n    return {}\n")
    killed, orphan = staged_by_a_process(bot)
    alive, theirs = staged_by_a_process(bot)
    mine = isolation.stage(bot)
    try:
        os.kill(killed.pid, signal.SIGKILL)  # as a worker killed mid-match: nothing unstages
        killed.wait()
        assert (orphan / "bot" / "bot.py").exists()
        removed = isolation.clean_stale_staging()
        assert orphan in removed and not orphan.exists()
        assert (theirs / "bot" / "bot.py").exists() and (mine / "bot" / "bot.py").exists()
        assert theirs not in removed and mine not in removed
    finally:
        alive.kill()
        alive.wait()
        isolation.unstage(mine)
    assert not mine.exists()
    assert theirs in isolation.clean_stale_staging()


def test_a_copy_being_made_is_not_taken_for_a_stale_one(tmp_path: Path) -> None:
    # mkdtemp comes a moment before its lock: a fresh folder without one is left alone.
    base = isolation.staging_root()
    base.mkdir(mode=0o711, exist_ok=True)
    # A name of its own: the staging folder is the machine's, and another suite may run this too.
    fresh = Path(tempfile.mkdtemp(prefix="bot-being-made-", dir=base))
    try:
        assert fresh not in isolation.clean_stale_staging()
        old = time.time() - isolation.STAGING_GRACE_SECONDS - 1
        os.utime(fresh, (old, old))
        assert fresh in isolation.clean_stale_staging()
    finally:
        if fresh.exists():
            fresh.rmdir()


def test_a_staged_copy_is_its_owners_alone_until_admitted_for_one_group(tmp_path: Path) -> None:
    bot = tmp_path / "bot"
    (bot / "lib").mkdir(parents=True)
    (bot / "bot.py").write_text("from lib.helper import PICK\n")
    (bot / "lib" / "helper.py").write_text("PICK = 1\n")
    for path in (bot, bot / "lib", bot / "bot.py", bot / "lib" / "helper.py"):
        path.chmod(0o755 if path.is_dir() else 0o644)  # as an upload unpacked before was
    root = isolation.stage(bot)
    try:
        assert {p: m for p, m in modes(root).items() if m & 0o077} == {}
        gid = pool_gid() if os.geteuid() == 0 else os.getgid()
        isolation.admit(root, gid)
        admitted = modes(root)
        assert admitted.pop(root / isolation.OWNER_LOCK) == 0o600
        for path, mode in admitted.items():
            assert mode == (0o750 if path.is_dir() else 0o640), (path, oct(mode))
            assert path.stat().st_gid == gid
    finally:
        isolation.unstage(root)


def pool_gid() -> int:
    users = isolation.pool_users()
    assert users, "no bot uid pool; run deploy/sandbox/setup.sh"
    return users[0].pw_gid
