"""What a worker does when it starts (celery's worker_ready)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from celery.signals import worker_process_init, worker_ready

from games.sandbox import isolation
from tournaments import tasks


def test_a_starting_worker_removes_dead_workers_staged_copies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # this test's own staging root
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.py").write_text("def act(o, l):\n    return {}\n")
    orphan = isolation.stage(bot)
    os.close(isolation._owner_locks.pop(orphan))  # as if its process had died
    worker_ready.send(sender=None)
    assert not orphan.exists()
    for signal in (worker_ready, worker_process_init):  # the worker, and each pool process
        assert tasks.clean_staged_copies in [ref() for _key, ref in signal.receivers]
