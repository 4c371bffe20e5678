"""isolation_status(): refuses with the reason, unless unsafe-dev is asked for (loudly)."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from games.engine.types import Legal
from games.sandbox import isolation, readiness
from games.sandbox.isolation import SandboxUnavailable
from games.sandbox.limits import Limits
from games.sandbox.readiness import isolation_status, require_isolation
from games.sandbox.seat import SeatController
from games.sandbox.verdicts import Verdict
from tournaments.bench import sandbox as bench

from .conftest import modes, unreadable_by


def test_unknown_mode_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BACKROOM_SANDBOX", "docker")
    ok, reason = isolation_status()
    assert not ok and "unknown BACKROOM_SANDBOX='docker'" in reason


def test_missing_bwrap_is_refused_with_the_fix(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("BACKROOM_SANDBOX", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no bwrap to be found
    # The refusal is cached; a private cache keeps it from the tests that follow, pass or fail.
    monkeypatch.setattr(readiness, "_status_cache", {})
    ok, reason = isolation_status()
    assert not ok
    assert reason == "bubblewrap (bwrap) is not installed; run deploy/sandbox/setup.sh as root"
    with pytest.raises(SandboxUnavailable, match="bubblewrap"):
        SeatController("/nonexistent", game="g", seat=0, seats=2).start()


def test_a_failed_check_is_kept_for_a_while_then_checked_again_and_a_success_for_good(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, sandbox_ready: None
) -> None:
    """A worker whose start check failed (a load spike timed the smoke bot out) played no
    uploaded bot's match until restarted: the no was kept for the process's life."""
    monkeypatch.delenv("BACKROOM_SANDBOX", raising=False)
    monkeypatch.setattr(readiness, "_status_cache", {})
    clock = [1000.0]  # the check's clock, moved by hand: no test waits out a minute
    monkeypatch.setattr(readiness, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    host_path = os.environ["PATH"]
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap to be found: the check fails
    ok, reason = isolation_status()
    assert not ok and "bubblewrap (bwrap) is not installed" in reason
    monkeypatch.setenv("PATH", host_path)  # the host can sandbox again...
    clock[0] += readiness.FAILED_KEPT_SECONDS - 1
    assert not isolation_status()[0]  # ...but the check is not made at every need
    clock[0] += 1
    ok, reason = isolation_status()  # the first need once the no has expired checks again
    assert ok and reason.startswith("bubblewrap sandbox ready"), reason
    monkeypatch.setenv("PATH", str(tmp_path))
    clock[0] += 10 * readiness.FAILED_KEPT_SECONDS
    assert isolation_status() == (ok, reason)  # a yes is kept: no smoke run at every need


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
    from tournaments.bench.sandbox import bench_sandbox

    result = bench_sandbox(starts=2, round_trips=20)
    assert result["mode"] == "bwrap"
    for key in [
        "sandboxed_start_ms",
        "bare_start_ms",
        "sandboxed_round_trip_us",
        "bare_round_trip_us",
    ]:
        assert result[key] > 0
    assert result["isolation"].startswith("bubblewrap sandbox ready")


def test_bench_takes_medians_and_divides_sandboxed_by_bare(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    timings = {
        "bwrap_start": [0.050, 0.030, 0.010],
        "bare_start": [0.012, 0.010, 0.011],
        "bwrap_trip": [200e-6, 100e-6, 300e-6, 150e-6],
        "bare_trip": [80e-6, 100e-6, 90e-6, 70e-6],
    }
    monkeypatch.setattr(bench, "require_isolation", lambda: "bwrap")
    monkeypatch.setattr(bench, "_measure", lambda bot, modes, starts, trips: timings)
    result = bench.bench_sandbox(starts=3, round_trips=4)
    assert result["sandboxed_start_ms"] == 30.0 and result["bare_start_ms"] == 11.0
    assert result["start_ratio"] == 2.727  # 30 / 11
    assert result["sandboxed_round_trip_us"] == 175.0 and result["bare_round_trip_us"] == 85.0
    assert result["round_trip_ratio"] == 2.059  # 175 / 85


@pytest.mark.skipif(os.geteuid() != 0, reason="as root only: other accounts must try to read")
def test_a_running_bot_reads_its_code_and_no_other_local_account_can(
    tmp_path: Path, sandbox_ready: None
) -> None:
    bot = tmp_path / "bot"
    (bot / "lib").mkdir(parents=True)
    (bot / "bot.py").write_text(
        "from lib.helper import PICK\n\ndef act(observation, legal):\n    return {'pick': PICK}\n"
    )
    # Marked with the whole temporary path: the staging folder is the machine's, and another
    # suite running the same test at once stages a folder of the same name.
    (bot / "lib" / "helper.py").write_text(f"PICK = 1  # {tmp_path}\n")
    with SeatController(bot, game="fake", seat=0, seats=2) as controller:
        legal: Legal = {"kind": "pick", "actions": [{"pick": 1}], "space": None}
        decision = controller.decide({}, legal, default={"pick": 0})
        # It runs as a pool uid and still reads its code, a module in a folder included...
        assert (decision.verdict, decision.action) == (Verdict.OK, {"pick": 1}), decision.detail
        source = (bot / "lib" / "helper.py").read_bytes()
        [copy] = [
            path
            for path in isolation.staging_root().glob("*/bot/lib/helper.py")
            if path.read_bytes() == source
        ]
        staged = copy.parents[2]
        # ...which nobody else can: neither an account of the host nor another pool uid.
        assert {p: oct(m) for p, m in modes(staged).items() if m & 0o007} == {}
        runner = copy.stat().st_gid
        others = [u.pw_name for u in isolation.pool_users() if u.pw_gid != runner]
        for user in ["nobody", *others]:
            assert unreadable_by(user, copy), user


# In a mount namespace of its own, /proc/sys read-only as Docker mounts it in a container, a
# bot is sandboxed and asks the kernel for a user namespace; it prints what the bot answered.
READ_ONLY_PROC_SYS = """
import sys
from games.sandbox.limits import Limits
from games.sandbox.readiness import isolation_status
from games.sandbox.seat import SeatController
ok, reason = isolation_status()
assert ok, reason
legal = {"kind": "k", "actions": [{"errno": 0}, {"errno": 1}], "space": None}
with SeatController(sys.argv[1], game="g", seat=0, seats=1, limits=Limits()) as seat:
    print(seat.decide({}, legal, default={"errno": -1}).action["errno"])
"""
UNSHARE_BOT = """
import ctypes

def act(observation, legal):
    libc = ctypes.CDLL(None, use_errno=True)
    refused = libc.unshare(0x10000000) != 0  # CLONE_NEWUSER
    return {"errno": ctypes.get_errno() if refused else 0}
"""


def test_bots_are_sandboxed_where_proc_sys_is_read_only(
    sandbox_ready: None, tmp_path: Path
) -> None:
    """A Docker container mounts /proc/sys read-only, where bubblewrap cannot write the sysctl
    of --disable-userns: the sandbox starts without it, and a bot still gets no user namespace
    (EPERM, from the bot kit's seccomp filter)."""
    import os
    import shutil
    import subprocess
    import sys

    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare(1) to mount /proc/sys read-only in a namespace")
    (tmp_path / "bot.py").write_text(UNSHARE_BOT)
    script = tmp_path / "check.py"
    script.write_text(READ_ONLY_PROC_SYS)
    done = subprocess.run(
        [
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            'mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys && exec "$@"',
            "sh",
            sys.executable,
            str(script),
            str(tmp_path),
        ],
        cwd=Path(__file__).resolve().parents[3],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["1"]  # EPERM
