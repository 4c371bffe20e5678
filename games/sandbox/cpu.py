"""A bot's CPU: capped at one core, and all of it counted, every thread of every process.

A bot's deadlines are wall-clock, but its threads can go on computing between its decisions
(while the other seats think), and threads that release the GIL (hashing, compression,
numerics) keep several cores busy at once: measured before this, 8 hashing threads used 14 s
of CPU in 48 s, bounded only by RLIMIT_CPU's 600 s per match. Two measures, here and in
connection.py:

* **The cap.** Each bot's process tree runs in a cgroup of its own, limited to
  ``Limits.cpu_cores`` (one core): cgroup v2's ``cpu.max`` where the host's unified hierarchy
  has the cpu controller, else cgroup v1's ``cpu.cfs_quota_us``. The bot is moved into it
  between fork and exec (``Cage.enter``), so nothing it starts is ever outside it.
* **The meter.** The CPU of the whole tree: the cgroup's own count (v2 ``cpu.stat``
  ``usage_usec``, v1 ``cpuacct.usage``), else the process tree's from /proc. The connection
  charges it against the bot's time limits.

Where no cgroup can be made (not root, no cpu controller, a read-only cgroup filesystem) there is
no rate cap; the meter falls back to /proc and the connection stops a bot whose CPU outruns its
time (``plan().reason`` says which, and the worker logs it at start).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path

PREFIX = "backroom-bot-"
"""Each bot's cgroup: ``backroom-bot-<worker pid>-<random>``, at the top of each hierarchy used.

At the top, not under a common parent: the kernel shares CPU among sibling groups by weight,
so a bot's group weighs as much as any one process of the host (the worker, Postgres), as its
process did before; under a common parent all the host's bots would share one such weight.
"""
PERIOD_US = 100_000
"""The quota's period: 100 ms, the kernel's default."""
_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Plan:
    """How this host caps and counts a bot's CPU (the same for every bot: see ``plan``)."""

    kind: str
    """``cgroup2``, ``cgroup1`` or ``none``."""
    cap: Path | None = None
    """Where the bots' capped cgroups are made (a hierarchy's top)."""
    meter: Path | None = None
    """Where the cgroups that count their CPU are made (v1's cpuacct may be another hierarchy)."""
    reason: str = ""

    @property
    def capped(self) -> bool:
        return self.cap is not None


def _mounts() -> list[tuple[str, Path, set[str]]]:
    """(filesystem type, mount point, options) of every cgroup filesystem mounted."""
    found = []
    with contextlib.suppress(OSError):
        for line in Path("/proc/mounts").read_text().splitlines():
            fields = line.split()
            if len(fields) >= 4 and fields[2] in ("cgroup", "cgroup2"):
                found.append((fields[2], Path(fields[1]), set(fields[3].split(","))))
    return found


def _write(path: Path, text: str) -> None:
    with open(path, "w") as f:  # one write() call, as cgroupfs expects
        f.write(text)


def _probe(parent: Path, setup: str, value: str) -> None:
    """Make a child of ``parent``, write ``value`` to its ``setup`` file, remove it again."""
    child = parent / f"{PREFIX}probe-{secrets.token_hex(3)}"
    child.mkdir()
    try:
        if setup:
            _write(child / setup, value)
    finally:
        child.rmdir()


def _v2(root: Path) -> Plan:
    if "cpu" not in (root / "cgroup.controllers").read_text().split():
        raise OSError(f"the cpu controller is not available in {root}")
    if "cpu" not in (root / "cgroup.subtree_control").read_text().split():
        _write(root / "cgroup.subtree_control", "+cpu")
    _probe(root, "cpu.max", f"{PERIOD_US} {PERIOD_US}")
    return Plan("cgroup2", root, root, f"capped by cgroup v2 cpu.max in {root}")


def _v1(mounts: list[tuple[str, Path, set[str]]]) -> Plan:
    cpu = next((m for kind, m, opts in mounts if kind == "cgroup" and "cpu" in opts), None)
    if cpu is None:
        raise OSError("no cgroup v1 hierarchy with the cpu controller is mounted")
    _probe(cpu, "cpu.cfs_quota_us", str(PERIOD_US))
    meter = next((m for kind, m, opts in mounts if kind == "cgroup" and "cpuacct" in opts), None)
    if meter is not None:
        _probe(meter, "", "")
    counted = f"cpuacct.usage in {meter}" if meter else "/proc"
    return Plan(
        "cgroup1",
        cpu,
        meter,
        f"capped by cgroup v1 cpu.cfs_quota_us in {cpu}, counted from {counted}",
    )


def detect() -> Plan:
    """Find out how bots' CPU can be capped here: cgroup v2, else v1, else not at all."""
    mounts = _mounts()
    failures = []
    for kind, root, _ in mounts:
        if kind == "cgroup2":
            try:
                return _v2(root)
            except OSError as exc:
                failures.append(f"cgroup v2 at {root}: {exc}")
    try:
        return _v1(mounts)
    except OSError as exc:
        failures.append(f"cgroup v1: {exc}")
    why = "; ".join(failures) or "no cgroup filesystem is mounted"
    return Plan(
        "none",
        reason=f"NOT capped (no cgroup could be made: {why}); a bot's CPU is counted from /proc"
        " and a bot whose CPU outruns its time limits is stopped",
    )


_plan: list[Plan] = []


def plan(refresh: bool = False) -> Plan:
    """This host's plan, found once per process (a probe: mkdir, a write, rmdir)."""
    if refresh or not _plan:
        _plan[:] = [detect()]
    return _plan[0]


def tree_cpu_seconds(pid: int) -> float:
    """User and system CPU of ``pid`` and all its descendants, every thread (dead ones too:
    a process's /proc stat includes its exited threads), from /proc."""
    total, todo, seen = 0, [pid], set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            stat = Path(f"/proc/{current}/stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
            for task in os.scandir(f"/proc/{current}/task"):
                todo.extend(int(c) for c in Path(task.path, "children").read_text().split())
        except (OSError, ValueError):
            continue  # it exited meanwhile: what it used is gone with it
    return total / _TICKS


class Cage:
    """One bot's cgroup(s): made before its process starts, removed after it is gone."""

    def __init__(self, where: Plan, cores: float) -> None:
        assert where.cap is not None
        self.plan = where
        name = f"{PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
        self.dirs = [where.cap / name]
        if where.meter is not None and where.meter != where.cap:
            self.dirs.append(where.meter / name)
        self._fds: list[int] = []
        self._usage: int | None = None
        try:
            for folder in self.dirs:
                folder.mkdir()
            quota = max(1000, int(cores * PERIOD_US))
            if where.kind == "cgroup2":
                _write(self.dirs[0] / "cpu.max", f"{quota} {PERIOD_US}")
            else:
                _write(self.dirs[0] / "cpu.cfs_period_us", str(PERIOD_US))
                _write(self.dirs[0] / "cpu.cfs_quota_us", str(quota))
            # Opened here, as the worker (root): the child writes to them after it has become
            # the bot's uid, and the kernel checks the opener's rights.
            self._fds = [
                os.open(folder / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC) for folder in self.dirs
            ]
            # Kept open: read at every decision, a pread costs a fraction of an open and close.
            usage = self.dirs[0] / "cpu.stat" if where.kind == "cgroup2" else None
            if where.kind == "cgroup1" and where.meter is not None:
                usage = self.dirs[-1] / "cpuacct.usage"
            if usage is not None:
                self._usage = os.open(usage, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            self.close()
            raise

    def enter(self) -> None:
        """Move the calling process into the cage: run in the child between fork and exec
        (subprocess's ``preexec_fn``), so the bot and all it starts live inside.

        Only a write to descriptors already open: nothing that could wait on a lock another
        thread of the worker held when it forked.
        """
        for fd in self._fds:
            os.write(fd, b"0")

    def started(self) -> None:
        """The child is inside: the parent's descriptors are no longer needed."""
        for fd in self._fds:
            os.close(fd)
        self._fds = []

    def cpu_seconds(self) -> float | None:
        """CPU used inside the cage so far, or None where it is not counted (/proc is, then)."""
        if self._usage is None:
            return None
        text = os.pread(self._usage, 4096, 0).decode()
        if self.plan.kind == "cgroup2":
            for line in text.splitlines():
                if line.startswith("usage_usec "):
                    return int(line.split()[1]) / 1e6
            return None
        return int(text) / 1e9

    def pids(self) -> list[int]:
        with contextlib.suppress(OSError):
            return [int(p) for p in (self.dirs[0] / "cgroup.procs").read_text().split()]
        return []

    def kill(self) -> None:
        """SIGKILL every process in the cage (whatever escaped the process group's kill)."""
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)

    def close(self, wait: float = 2.0) -> None:
        """Remove the cgroups once their processes are gone (killed ones take a moment)."""
        self.started()
        if self._usage is not None:
            os.close(self._usage)
            self._usage = None
        deadline = time.monotonic() + wait
        for folder in self.dirs:
            while True:
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break  # left for clean_stale_cages at the next worker start
                    self.kill()
                    time.sleep(0.01)


def clean_stale_cages(where: Plan | None = None) -> list[Path]:
    """Remove the empty cages of dead workers (a SIGKILLed worker removes nothing).

    A cage is named after the worker process that made it: one whose process is alive may be
    about to receive its bot, and is left alone.
    """
    where = where or plan()
    removed = []
    for parent in {p for p in (where.cap, where.meter) if p is not None}:
        with contextlib.suppress(OSError):
            for entry in os.scandir(parent):
                if not (entry.is_dir() and entry.name.startswith(PREFIX)):
                    continue
                with contextlib.suppress(ValueError):
                    maker = int(entry.name.removeprefix(PREFIX).split("-")[0])
                    if Path(f"/proc/{maker}").exists():
                        continue
                with contextlib.suppress(OSError):
                    os.rmdir(entry.path)
                    removed.append(Path(entry.path))
    return removed
