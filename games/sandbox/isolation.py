"""How a bot process is isolated: bubblewrap as a pooled non-root uid, or nothing.

The default mode starts every bot under bubblewrap with all namespaces
unshared (no network, no host processes), a read-only /usr, a private capped
/tmp and an empty environment, as one of the ``backroom-bot-N`` uids. If that
is impossible on this host the platform refuses to start bots, unless
``BACKROOM_SANDBOX=unsafe-dev`` asks for plain subprocesses (rlimits and,
where libseccomp exists, seccomp, but no namespaces), logged at every start.
"""

from __future__ import annotations

import ctypes
import fcntl
import logging
import os
import pwd
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from games.sandbox.limits import Limits

log = logging.getLogger("games.sandbox")

MODE_ENV = "BACKROOM_SANDBOX"
PYTHON_ENV = "BACKROOM_SANDBOX_PYTHON"
BWRAP = "bwrap"
UNSAFE_DEV = "unsafe-dev"
UID_PREFIX = "backroom-bot-"
SYSTEM_PYTHON = "/usr/bin/python3"
RUNNER = Path(__file__).with_name("sdk") / "runner.py"
SETUP_HINT = "run deploy/sandbox/setup.sh as root"
UNSAFE_WARNING = (
    "UNSAFE sandbox mode (BACKROOM_SANDBOX=unsafe-dev): bot code runs as a plain subprocess "
    "with rlimits only, with the platform's uid, network and filesystem. Never use it for uploads."
)


class SandboxUnavailable(RuntimeError):
    """Bots cannot be started on this host; the message says why and how to fix it."""


def mode() -> str:
    return os.environ.get(MODE_ENV, "").strip() or BWRAP


def bot_python() -> str:
    """The interpreter bots run on: the host's system Python (stdlib only), read-only."""
    if os.environ.get(PYTHON_ENV):
        return os.environ[PYTHON_ENV]
    if mode() == UNSAFE_DEV:
        return sys.executable
    return SYSTEM_PYTHON


# --- the uid pool ----------------------------------------------------------


@dataclass
class UidLease:
    """One pool uid held by this process (an flock, released on close or on death)."""

    uid: int
    gid: int
    name: str
    _lock_fd: int | None = None

    def release(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None


def pool_users() -> list[pwd.struct_passwd]:
    """backroom-bot-0, -1, ... up to the first missing one."""
    users: list[pwd.struct_passwd] = []
    while True:
        try:
            users.append(pwd.getpwnam(f"{UID_PREFIX}{len(users)}"))
        except KeyError:
            return users


def _lock_dir() -> Path:
    path = Path("/run/backroom-sandbox") if os.geteuid() == 0 else Path(tempfile.gettempdir())
    path.mkdir(mode=0o700, exist_ok=True)
    return path


def lease_uid(wait_seconds: float = 10.0) -> UidLease:
    """A pool uid no other bot on this host uses now (file locks work across workers).

    As a non-root user there is no pool: bubblewrap runs as the current uid.
    """
    if os.geteuid() != 0:
        return UidLease(os.getuid(), os.getgid(), pwd.getpwuid(os.getuid()).pw_name)
    users = pool_users()
    if not users:
        raise SandboxUnavailable(f"no bot uid pool ({UID_PREFIX}0..N); {SETUP_HINT}")
    lock_dir = _lock_dir()
    deadline = time.monotonic() + wait_seconds
    while True:
        for user in users:
            fd = os.open(lock_dir / f"{user.pw_name}.lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            return UidLease(user.pw_uid, user.pw_gid, user.pw_name, fd)
        if time.monotonic() > deadline:
            raise SandboxUnavailable(f"all {len(users)} bot uids are busy")
        time.sleep(0.05)


# --- staging: what the bot uid may read --------------------------------------


def _copy_tree(src: Path, dst: Path) -> None:
    """Copy regular files only (never follow a symlink as root), world-readable."""
    dst.mkdir(mode=0o755)
    os.chmod(dst, 0o755)
    for entry in os.scandir(src):
        target = dst / entry.name
        if entry.is_dir(follow_symlinks=False):
            _copy_tree(Path(entry.path), target)
        elif entry.is_file(follow_symlinks=False):
            shutil.copyfile(entry.path, target, follow_symlinks=False)
            os.chmod(target, 0o644)


def stage(bot_dir: Path) -> Path:
    """A fresh directory holding ``bot/`` (a copy of bot_dir) and ``sdk/runner.py``.

    Uploaded bots are stored where a bot uid cannot read; the copy lives under
    a root-owned 0711 directory with an unguessable name.
    """
    base = Path(tempfile.gettempdir()) / "backroom-sandbox"
    base.mkdir(mode=0o711, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="bot-", dir=base))
    os.chmod(root, 0o755)
    _copy_tree(bot_dir, root / "bot")
    (root / "sdk").mkdir(mode=0o755)
    os.chmod(root / "sdk", 0o755)
    shutil.copyfile(RUNNER, root / "sdk" / "runner.py")
    os.chmod(root / "sdk" / "runner.py", 0o644)
    return root


def unstage(root: Path) -> None:
    shutil.rmtree(root, ignore_errors=True)


# --- command lines -----------------------------------------------------------


def bwrap_command(staged: Path, limits: Limits, python: str | None = None) -> list[str]:
    """bubblewrap around sdk/runner.py: the bot sees /usr, /bot, /sdk, /dev and a /tmp."""
    python = python or bot_python()
    binds = ["--ro-bind", "/usr", "/usr"]
    prefix = Path(os.path.realpath(python)).parent.parent
    if not str(prefix).startswith("/usr"):
        binds += ["--ro-bind", str(prefix), str(prefix)]
    bwrap = shutil.which("bwrap") or "/usr/bin/bwrap"
    return [
        bwrap,
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        *binds,
        "--symlink", "usr/lib", "/lib",
        "--symlink", "usr/lib64", "/lib64",
        "--symlink", "usr/bin", "/bin",
        "--symlink", "usr/sbin", "/sbin",
        "--dev", "/dev",
        "--size", str(limits.tmpfs_bytes), "--tmpfs", "/tmp",
        "--ro-bind", str(staged / "bot"), "/bot",
        "--ro-bind", str(staged / "sdk"), "/sdk",
        "--remount-ro", "/",
        "--clearenv",
        "--setenv", "HOME", "/tmp",
        "--setenv", "LANG", "C.UTF-8",
        "--hostname", "sandbox",
        "--chdir", "/tmp",
        python, "-I", "-S", "-B", "/sdk/runner.py", "/bot",
        *limits.runner_args(),
        "--seccomp=required",
    ]  # fmt: skip


def unsafe_command(staged: Path, limits: Limits, python: str | None = None) -> list[str]:
    python = python or bot_python()
    runner = str(staged / "sdk" / "runner.py")
    args = [python, "-I", "-S", "-B", runner, str(staged / "bot"), *limits.runner_args()]
    return [*args, "--seccomp=best-effort"]


def bare_command(staged: Path, python: str | None = None) -> list[str]:
    """The same runner with no isolation at all (the benchmark's baseline)."""
    python = python or bot_python()
    runner = str(staged / "sdk" / "runner.py")
    return [python, "-I", "-S", "-B", runner, str(staged / "bot"), "--seccomp=off"]


# --- can this host isolate bots? -----------------------------------------------

_SMOKE_BOT = """
import os, socket
def act(observation, legal):
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
    return {"denied": denied, "uid": os.getuid(), "env": sorted(os.environ)}
"""

_status_cache: dict[tuple[str, str], tuple[bool, str]] = {}


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
    """Start a real sandboxed bot that tries fork, socket and exec: all must be denied."""
    from games.sandbox.connection import BotConnection  # a cycle at import time otherwise

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "bot.py").write_text(_SMOKE_BOT)
        conn = BotConnection(Path(tmp), Limits(), mode=BWRAP)
        try:
            started = conn.start({"type": "start", "protocol": 1, "smoke": True})
            if started.fault is not None:
                return False, _explain(f"{started.detail} {started.stderr}")
            got = conn.ask({"type": "act", "id": 1, "observation": {}, "legal": {}}, 5.0)
        finally:
            conn.close()
    reply = got.reply or {}
    action = reply.get("action") if isinstance(reply.get("action"), dict) else None
    if got.fault is not None or action is None:
        return False, _explain(f"{got.detail} {got.stderr}")
    if sorted(action["denied"]) != ["exec", "fork", "socket"]:
        return False, f"seccomp filter not effective: only {action['denied']} were denied"
    if os.geteuid() == 0 and action["uid"] == 0:
        return False, "bot ran as root inside the sandbox"
    who = f"uid pool of {len(pool_users())}" if os.geteuid() == 0 else f"uid {os.getuid()}"
    return True, f"bubblewrap sandbox ready ({who}, seccomp on, user namespaces work)"


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
    """Whether uploaded bots may be started here, and why (the worker calls it at start)."""
    current = mode()
    if current == UNSAFE_DEV:
        return True, UNSAFE_WARNING
    if current != BWRAP:
        return False, f"unknown {MODE_ENV}={current!r}; use {BWRAP!r} (default) or {UNSAFE_DEV!r}"
    key = (current, bot_python())
    if refresh or key not in _status_cache:
        try:
            _status_cache[key] = _check_bwrap()
        except Exception as exc:  # the check itself must explain, not crash the worker
            _status_cache[key] = (False, f"sandbox check failed: {exc!r}")
    return _status_cache[key]


def require_isolation() -> str:
    """The mode to start bots in, or SandboxUnavailable saying why not."""
    ok, reason = isolation_status()
    if not ok:
        raise SandboxUnavailable(reason)
    current = mode()
    if current == UNSAFE_DEV:
        log.warning(UNSAFE_WARNING)
    return current
