"""Can this host isolate bots? A real sandboxed smoke run says; a yes is kept for the process,
a no for ``FAILED_KEPT_SECONDS``.

The worker asks at start (``isolation_status``), its scheduler before each pick, ``deploy/sandbox/
setup.sh`` prints the answer, and every bot start goes through ``require_isolation``. It sits above
connection.py (it starts a real bot), which sits above isolation.py (how a bot process is confined).
"""

from __future__ import annotations

import ctypes
import logging
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from games.sandbox import cpu, packages
from games.sandbox.connection import BotConnection
from games.sandbox.isolation import (
    BWRAP,
    MODE_ENV,
    PYTHON_ENV,
    SETUP_HINT,
    UID_PREFIX,
    UNSAFE_DEV,
    UNSAFE_WARNING,
    SandboxUnavailable,
    bot_python,
    mode,
    pool_users,
)
from games.sandbox.limits import Limits

log = logging.getLogger("games.sandbox")

_SMOKE_BOT = """
import importlib, os, socket
offered = {}
def start(info):
    offered.update(info["packages"])
def act(observation, legal):
    imported = {}
    for name in offered:  # what the start message promises must import, and be that version
        try:
            imported[name] = importlib.import_module(name).__version__
        except Exception as exc:
            imported[name] = f"{type(exc).__name__}: {exc}"
    denied = []
    attempts = [
        ("fork", lambda: os.fork() or os._exit(0)),  # a child that did get made leaves at once
        ("socket", socket.socket),
        ("exec", lambda: os.execv("/nonexistent", ["x"])),  # FileNotFoundError if allowed
    ]
    for name, attempt in attempts:
        try:
            attempt()
        except PermissionError:
            denied.append(name)
        except OSError:
            pass
    return {"denied": denied, "uid": os.getuid(), "env": sorted(os.environ), "imported": imported}
"""

FAILED_KEPT_SECONDS = 60.0
"""How long a failed answer is kept before the next need checks again. The smoke run must answer
within seconds, so a worker started during a load spike failed it and, the answer kept for good,
never played an uploaded bot's match until restarted. A check costs a sandboxed start and numpy's
import (a second or more), so it is not made at every need, and a yes is kept."""

_status_cache: dict[tuple[str, str], tuple[bool, str, float]] = {}
"""The answer by (mode, bots' interpreter), with when it was found (``time.monotonic``)."""


def _check_bwrap() -> tuple[bool, str]:
    if not sys.platform.startswith("linux"):
        return False, f"bots can only be sandboxed on Linux (this is {sys.platform})"
    if shutil.which("bwrap") is None:
        return False, f"bubblewrap (bwrap) is not installed; {SETUP_HINT}"
    python = bot_python()
    if not os.access(python, os.X_OK):
        return False, f"bot interpreter {python} is missing ({PYTHON_ENV} to choose another)"
    try:
        ctypes.CDLL("libseccomp.so.2")
    except OSError:
        return False, f"libseccomp2 is not installed; {SETUP_HINT}"
    if os.geteuid() == 0 and not pool_users():
        return False, f"no bot uid pool ({UID_PREFIX}0..N); {SETUP_HINT}"
    return _smoke_run()


def _smoke_run() -> tuple[bool, str]:
    """Start a real sandboxed bot that imports the packages bots are offered and tries fork,
    socket and exec: all must be denied."""
    lacking = packages.missing()
    if lacking:
        return False, f"bots are promised {', '.join(lacking)}, not installed here (make install)"
    offered = packages.versions()
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "bot.py").write_text(_SMOKE_BOT)
        conn = BotConnection(Path(tmp), Limits(), mode=BWRAP)
        try:
            started = conn.start(
                {"type": "start", "protocol": 1, "smoke": True, "packages": offered}
            )
            if started.fault is not None:
                return False, _explain(f"{started.detail} {started.stderr}")
            got = conn.ask({"type": "act", "id": 1, "observation": {}, "legal": {}}, 5.0)
            caged = conn.caged()
        finally:
            conn.close()
    reply = got.reply or {}
    action = reply.get("action") if isinstance(reply.get("action"), dict) else None
    if got.fault is not None or action is None:
        return False, _explain(f"{got.detail} {got.stderr}")
    if sorted(action["denied"]) != ["exec", "fork", "socket"]:
        return False, f"seccomp filter not effective: only {action['denied']} were denied"
    if action["imported"] != offered:
        return False, _unimportable(offered, action["imported"])
    if os.geteuid() == 0 and action["uid"] == 0:
        return False, "bot ran as root inside the sandbox"
    who = f"uid pool of {len(pool_users())}" if os.geteuid() == 0 else f"uid {os.getuid()}"
    where = cpu.plan()
    if where.capped and not caged:
        return False, f"the bot was not in its CPU cgroup ({where.reason})"
    return (
        True,
        f"bubblewrap sandbox ready ({who}, seccomp on, user namespaces work); {cpu_status()};"
        f" {packages_status()}",
    )


def _unimportable(offered: dict[str, str], imported: dict[str, str]) -> str:
    wrong = [f"{name} {version}: {imported.get(name)}" for name, version in offered.items()
             if imported.get(name) != version]  # fmt: skip
    return (
        f"bots cannot import the packages they are offered ({'; '.join(wrong)}); the bots'"
        f" interpreter {bot_python()} must be the worker's Python {sys.version_info[0]}."
        f"{sys.version_info[1]} ({PYTHON_ENV} to choose another) and the host must have the"
        " C++ runtime numpy needs (libstdc++6)"
    )


def packages_status() -> str:
    """What bots may import here, for the worker's start line."""
    return f"bots may import {packages.described()}"


def cpu_status() -> str:
    """How a bot's CPU is capped and counted here (cpu.py), for the worker's start line."""
    return f"bot CPU: {cpu.plan().reason}"


def _explain(output: str) -> str:
    output = " ".join(output.split())[:500]
    if "namespace" in output.lower() or "Operation not permitted" in output:
        return (
            "bubblewrap cannot create user namespaces as the bot uid; the host must allow "
            "unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, "
            f"user.max_user_namespaces>0, no AppArmor userns restriction): {output}"
        )
    return f"sandbox smoke run failed: {output}"


def isolation_status(refresh: bool = False) -> tuple[bool, str]:
    """Whether uploaded bots may be started here, and why (the worker calls it at start, its
    scheduler before each pick): checked at the first need, again at the first need
    ``FAILED_KEPT_SECONDS`` after a no, never again after a yes; ``refresh`` checks now."""
    current = mode()
    if current == UNSAFE_DEV:
        return True, UNSAFE_WARNING
    if current != BWRAP:
        return False, f"unknown {MODE_ENV}={current!r}; use {BWRAP!r} (default) or {UNSAFE_DEV!r}"
    key = (current, bot_python())
    kept = _status_cache.get(key)
    now = time.monotonic()
    if not refresh and kept is not None and (kept[0] or now - kept[2] < FAILED_KEPT_SECONDS):
        return kept[0], kept[1]
    try:
        ok, reason = _check_bwrap()
    except Exception as exc:  # the check itself must explain, not crash the worker
        ok, reason = False, f"sandbox check failed: {exc!r}"
    _status_cache[key] = (ok, reason, time.monotonic())
    if kept is not None and not kept[0]:  # the worker's start line said no: say what changed
        if ok:
            log.info("sandbox: ready now, uploaded bots will be started here: %s", reason)
        else:
            log.warning(
                "sandbox still unavailable, checking again in %.0f s: %s",
                FAILED_KEPT_SECONDS,
                reason,
            )
    return ok, reason


def require_isolation() -> str:
    """The mode to start bots in, or SandboxUnavailable saying why not."""
    ok, reason = isolation_status()
    if not ok:
        raise SandboxUnavailable(reason)
    current = mode()
    if current == UNSAFE_DEV:
        log.warning(UNSAFE_WARNING)
    return current
