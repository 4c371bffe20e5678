"""A bot's CPU (games/sandbox/cpu.py): how the host caps it, what is counted where it cannot,
and the cgroups of dead workers cleaned up. The cap and the charge themselves are tested with a
hostile bot in test_hostile.py."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from games.sandbox import SeatController, Verdict, cpu, readiness
from games.sandbox.readiness import isolation_status
from tests.support.processes import wait_until

from .conftest import FAST, FakeGame
from .test_hostile import tree_cpu

Seat = Callable[..., SeatController]


@pytest.fixture
def no_cgroups(monkeypatch: pytest.MonkeyPatch) -> Iterator[cpu.Plan]:
    """This process sees a host where no cgroup can be made. The sandbox's readiness, which
    quotes the plan and keeps a yes for good, gets a cache of its own meanwhile: a check made
    in this window must not tell the tests that follow that the CPU is not capped."""
    monkeypatch.setattr(cpu, "_mounts", list)
    monkeypatch.setattr(readiness, "_status_cache", {})
    plan = cpu.plan(refresh=True)
    yield plan
    monkeypatch.undo()
    cpu.plan(refresh=True)


def test_a_host_without_cgroups_says_the_cpu_is_not_capped(no_cgroups: cpu.Plan) -> None:
    assert no_cgroups.kind == "none" and not no_cgroups.capped
    assert no_cgroups.reason.startswith("NOT capped")
    assert "counted from /proc" in no_cgroups.reason


def test_without_a_cgroup_the_cpu_of_every_thread_is_still_charged(
    seat: Seat, no_cgroups: cpu.Plan
) -> None:
    controller = seat("hashing_threads")
    assert controller.decide({}, FakeGame().legal(), default={"pick": 0}).verdict is Verdict.OK
    assert controller._conn is not None and controller._conn.proc is not None
    assert not controller._conn.caged()
    pid = controller._conn.proc.pid
    start = tree_cpu(pid)
    wait_until(
        lambda: tree_cpu(pid) - start >= FAST.move_seconds + FAST.bank_seconds + 0.3,
        60,
        "the threads to use the CPU",
        seen=lambda: f"{tree_cpu(pid) - start:.2f} s of CPU",
    )
    second = controller.decide({}, FakeGame().legal(), default={"pick": 0})
    assert second.verdict is Verdict.TIMEOUT and "CPU" in second.detail


def test_readiness_reports_how_bots_cpu_is_capped(sandbox_ready: None) -> None:
    ok, reason = isolation_status(refresh=True)  # checked now: the plan below is today's too
    assert ok and "bot CPU: " in reason
    plan = cpu.plan()
    assert plan.reason in reason
    if os.geteuid() == 0:  # root can make cgroups on any host with the cpu controller mounted
        assert plan.capped, plan.reason
        assert plan.reason.startswith(("capped by cgroup v2", "capped by cgroup v1"))


def test_cages_of_dead_workers_are_removed_and_live_ones_kept(sandbox_ready: None) -> None:
    plan = cpu.plan()
    if not plan.capped:
        pytest.skip(plan.reason)
    assert plan.cap is not None
    dead = os.fork()
    if dead == 0:
        os._exit(0)
    os.waitpid(dead, 0)  # a pid that was a process and is no more
    stale = plan.cap / f"{cpu.PREFIX}{dead}-0000dead"
    mine = cpu.Cage(plan, 1.0)  # this live process's, about to receive a bot
    stale.mkdir()
    try:
        removed = cpu.clean_stale_cages(plan)
        assert stale in removed and not stale.exists()
        assert all(folder.is_dir() for folder in mine.dirs)
    finally:
        mine.close()
        if stale.exists():
            stale.rmdir()
    assert not any(Path(folder).exists() for folder in mine.dirs)
