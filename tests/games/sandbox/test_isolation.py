"""isolation_status(): refuses with the reason, unless unsafe-dev is asked for (loudly)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from games.sandbox import isolation
from games.sandbox.isolation import SandboxUnavailable, isolation_status, require_isolation
from games.sandbox.limits import Limits
from games.sandbox.seat import SeatController


def test_unknown_mode_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BACKROOM_SANDBOX", "docker")
    ok, reason = isolation_status()
    assert not ok and "unknown BACKROOM_SANDBOX='docker'" in reason


def test_missing_bwrap_is_refused_with_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BACKROOM_SANDBOX", raising=False)
    monkeypatch.setattr("shutil.which", lambda name: None)
    ok, reason = isolation_status(refresh=True)
    assert not ok
    assert reason == "bubblewrap (bwrap) is not installed; run deploy/sandbox/setup.sh as root"
    with pytest.raises(SandboxUnavailable, match="bubblewrap"):
        SeatController("/nonexistent", game="g", seat=0, seats=2).start()
    isolation._status_cache.clear()  # the real answer for the tests that follow


def test_unsafe_dev_mode_is_allowed_but_logged_at_every_start(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("BACKROOM_SANDBOX", "unsafe-dev")
    ok, reason = isolation_status()
    assert ok and reason.startswith("UNSAFE")
    (tmp_path / "bot.py").write_text("def act(o, l):\n    return l['actions'][0]\n")
    legal = {"kind": "k", "actions": [{"a": 1}], "space": None}
    with caplog.at_level(logging.WARNING, "games.sandbox"):
        for _ in range(2):
            with SeatController(tmp_path, game="g", seat=0, seats=1, limits=Limits()) as c:
                assert c.decide({}, legal, default={"a": 0}).action == {"a": 1}  # type: ignore[arg-type]
    assert sum("UNSAFE" in r.message for r in caplog.records) == 2


def test_require_isolation_reports_the_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BACKROOM_SANDBOX", "unsafe-dev")
    assert require_isolation() == "unsafe-dev"


def test_bwrap_command_unshares_everything_and_clears_the_environment(tmp_path: Path) -> None:
    argv = isolation.bwrap_command(tmp_path, Limits(), python="/usr/bin/python3")
    for flag in [
        "--unshare-all",
        "--die-with-parent",
        "--clearenv",
        "--disable-userns",
        "--new-session",
    ]:
        assert flag in argv
    assert "--share-net" not in argv
    assert argv[argv.index("--tmpfs") - 1] == str(Limits().tmpfs_bytes)
    assert argv[-1] == "--seccomp=required"


def test_bench_reports_both_ways_and_ratios(sandbox_ready: None) -> None:
    from games.sandbox.bench import bench_sandbox

    result = bench_sandbox(starts=2, round_trips=20)
    assert result["mode"] == "bwrap"
    for key in [
        "sandboxed_start_ms",
        "bare_start_ms",
        "sandboxed_round_trip_us",
        "bare_round_trip_us",
    ]:
        assert result[key] > 0
    assert (
        result["start_ratio"] == round(result["sandboxed_start_ms"] / result["bare_start_ms"], 3)
        or abs(result["start_ratio"] - result["sandboxed_start_ms"] / result["bare_start_ms"])
        < 0.01
    )
