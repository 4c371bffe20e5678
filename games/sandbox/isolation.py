"""How a bot process is isolated: bubblewrap as a pooled non-root uid, or nothing.

The default mode starts every bot under bubblewrap with all namespaces
unshared (no network, no host processes), a read-only /usr, a private capped
/tmp and an empty environment, as one of the ``backroom-bot-N`` uids. If that
is impossible on this host the platform refuses to start bots, unless
``BACKROOM_SANDBOX=unsafe-dev`` asks for plain subprocesses (rlimits and,
where libseccomp exists, seccomp, but no namespaces), logged at every start.
Whether this host can isolate bots is readiness.py's question (a real smoke run).
"""

from __future__ import annotations

import fcntl
import os
import pwd
import shutil
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from games.sandbox import packages
from games.sandbox.limits import Limits

MODE_ENV = "BACKROOM_SANDBOX"
PYTHON_ENV = "BACKROOM_SANDBOX_PYTHON"
BWRAP = "bwrap"
UNSAFE_DEV = "unsafe-dev"
UID_PREFIX = "backroom-bot-"
SYSTEM_PYTHON = "/usr/bin/python3"
BOTKIT = Path(__file__).with_name("sdk") / "botkit.py"  # the SDK a bot runs under
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
    """The interpreter bots run on: the host's system Python, read-only; the packages bots may
    import beside its standard library are the worker's own (packages.py)."""
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

PRIVATE_DIR, PRIVATE_FILE = 0o700, 0o600
"""A bot's files at rest, and a staged copy until admit(): its owner's alone. Another local
account must not read a private bot's source."""
ADMITTED_DIR, ADMITTED_FILE = 0o750, 0o640
"""A staged copy once admitted: read (never written) by the group of the pool uid running it."""


def write_private(folder: Path, files: Mapping[str, bytes]) -> None:
    """Write a bot's files (relative POSIX paths, as upload.unpack gives them) under ``folder``,
    folders 0700 and files 0600 whatever the umask."""
    for rel, data in files.items():
        current = folder
        for part in Path(rel).parent.parts:
            current = current / part
            current.mkdir(mode=PRIVATE_DIR, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(folder / rel, flags, PRIVATE_FILE)
        with open(fd, "wb") as out:
            os.fchmod(fd, PRIVATE_FILE)
            out.write(data)


def _copy_tree(src: Path, dst: Path) -> None:
    """Copy regular files only (never follow a symlink as root), readable by this user only."""
    dst.mkdir(mode=PRIVATE_DIR)
    os.chmod(dst, PRIVATE_DIR)
    for entry in os.scandir(src):
        target = dst / entry.name
        if entry.is_dir(follow_symlinks=False):
            _copy_tree(Path(entry.path), target)
        elif entry.is_file(follow_symlinks=False):
            shutil.copyfile(entry.path, target, follow_symlinks=False)
            os.chmod(target, PRIVATE_FILE)


def staging_root() -> Path:
    """The folder of staged copies; root's admits no other user's, so each user has one."""
    base = Path(tempfile.gettempdir()) / "backroom-sandbox"
    return base if os.geteuid() == 0 else base.with_name(f"backroom-sandbox-{os.geteuid()}")


OWNER_LOCK = ".owner.lock"
"""In each staged copy: flocked by the process that staged it for as long as it uses it."""
STAGING_GRACE_SECONDS = 60.0
"""A staged folder without its lock is left alone this long (it is being made right now)."""
_owner_locks: dict[Path, int] = {}
"""This process's staged copies and their lock descriptors (closed by unstage or by death)."""


def stage(bot_dir: Path) -> Path:
    """A fresh directory holding ``bot/`` (a copy of bot_dir) and ``sdk/botkit.py``.

    Uploaded bots are stored where a bot uid cannot read; the copy lives under
    a root-owned 0711 directory, readable by this user only until admit() lets
    the one pool uid that runs it in (its name shows in the sandbox's command
    line, so an unguessable name hides nothing). This process holds an
    flock on its ``.owner.lock`` until unstage(): the kernel drops it when the
    process dies however it dies, so clean_stale_staging() can tell a killed
    worker's leftovers from copies in use.
    """
    base = staging_root()
    base.mkdir(mode=0o711, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="bot-", dir=base))
    lock = os.open(root / OWNER_LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    fcntl.flock(lock, fcntl.LOCK_EX)  # a new file nobody else knows yet: never blocks
    _owner_locks[root] = lock
    _copy_tree(bot_dir, root / "bot")
    (root / "sdk").mkdir(mode=PRIVATE_DIR)
    os.chmod(root / "sdk", PRIVATE_DIR)
    shutil.copyfile(BOTKIT, root / "sdk" / "botkit.py")
    os.chmod(root / "sdk" / "botkit.py", PRIVATE_FILE)
    return root


def admit(root: Path, gid: int) -> None:
    """Let the staged copy ``root`` be read and run by group ``gid`` (the leased pool uid's own
    group) and by nobody else: group-owned, 0750 and 0640; it stays root's, so never writable."""
    os.chown(root, -1, gid)
    os.chmod(root, ADMITTED_DIR)
    for top in ("bot", "sdk"):
        for folder, _dirs, files in os.walk(root / top):  # never follows a link (none is copied)
            os.chown(folder, -1, gid)
            os.chmod(folder, ADMITTED_DIR)
            for name in files:
                path = os.path.join(folder, name)
                os.chown(path, -1, gid, follow_symlinks=False)
                os.chmod(path, ADMITTED_FILE)


def unstage(root: Path) -> None:
    shutil.rmtree(root, ignore_errors=True)
    lock = _owner_locks.pop(root, None)
    if lock is not None:
        os.close(lock)


def clean_stale_staging() -> list[Path]:
    """Remove the staged copies no live process owns (a SIGKILLed worker's); returns them.

    Called when a worker starts. A copy whose lock can be taken has no owner left; one
    without a lock file is removed only once older than STAGING_GRACE_SECONDS.
    """
    base = staging_root()
    removed: list[Path] = []
    try:
        entries = list(os.scandir(base))
    except FileNotFoundError:
        return removed
    for entry in entries:
        if not entry.is_dir(follow_symlinks=False):
            continue
        root = Path(entry.path)
        try:
            lock = os.open(root / OWNER_LOCK, os.O_RDWR | os.O_CLOEXEC)
        except FileNotFoundError:
            try:
                age = time.time() - entry.stat(follow_symlinks=False).st_mtime
            except FileNotFoundError:
                continue
            if age > STAGING_GRACE_SECONDS:
                shutil.rmtree(root, ignore_errors=True)
                removed.append(root)
            continue
        except OSError:  # e.g. removed meanwhile by its owner
            continue
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # its owner is alive
            os.close(lock)
            continue
        shutil.rmtree(root, ignore_errors=True)  # still holding the lock: nobody reuses it
        os.close(lock)
        removed.append(root)
    return removed


# --- command lines -----------------------------------------------------------


def userns_sysctl_writable() -> bool:
    """Whether bubblewrap can lower ``user.max_user_namespaces`` (``--disable-userns``): not
    where /proc/sys is mounted read-only, as in a Docker container (docs/deploy.md)."""
    try:
        return not os.statvfs("/proc/sys").f_flag & os.ST_RDONLY
    except OSError:
        return False


def bwrap_command(staged: Path, limits: Limits, python: str | None = None) -> list[str]:
    """bubblewrap around sdk/botkit.py: the bot sees /usr, /bot, /sdk, /packages, /dev (read-only)
    and a /tmp."""
    python = python or bot_python()
    binds = ["--ro-bind", "/usr", "/usr"]
    prefix = Path(os.path.realpath(python)).parent.parent
    if not str(prefix).startswith("/usr"):
        binds += ["--ro-bind", str(prefix), str(prefix)]
    offered = packages.mounts()
    for source, inside in offered:
        binds += ["--ro-bind", str(source), inside]
    path = [f"--packages={packages.SANDBOX_FOLDER}"] if offered else []
    variables = [a for k, v in packages.environment().items() for a in ("--setenv", k, v)]
    bwrap = shutil.which("bwrap") or "/usr/bin/bwrap"
    # No nested user namespace for the bot: bubblewrap's sysctl where it can write it; the bot
    # kit's seccomp filter (no unshare, setns, clone3 or process clone) refuses one either way.
    no_userns = ["--disable-userns"] if userns_sysctl_writable() else []
    return [
        bwrap,
        "--unshare-all",
        "--unshare-user",
        *no_userns,
        "--die-with-parent",
        "--new-session",
        *binds,
        "--symlink", "usr/lib", "/lib",
        "--symlink", "usr/lib64", "/lib64",
        "--symlink", "usr/bin", "/bin",
        "--symlink", "usr/sbin", "/sbin",
        # --dev is a tmpfs as large as half the host's memory (/dev/shm in it): read-only, so the
        # private /tmp (capped) is the one place a bot can store files.
        "--dev", "/dev",
        "--remount-ro", "/dev",
        "--size", str(limits.tmpfs_bytes), "--tmpfs", "/tmp",  # noqa: S108 (the sandbox's own private tmpfs, not the host's /tmp)
        "--ro-bind", str(staged / "bot"), "/bot",
        "--ro-bind", str(staged / "sdk"), "/sdk",
        "--remount-ro", "/",
        "--clearenv",
        "--setenv", "HOME", "/tmp",  # noqa: S108 (inside the sandbox: its private tmpfs)
        "--setenv", "LANG", "C.UTF-8",
        *variables,
        "--hostname", "sandbox",
        "--chdir", "/tmp",  # noqa: S108 (inside the sandbox: its private tmpfs)
        python, "-I", "-S", "-B", "/sdk/botkit.py", "/bot",
        *limits.botkit_args(),
        *path,
        "--seccomp=required",
    ]  # fmt: skip


PACKAGE_LINKS = "packages"
"""In a staged copy run without bubblewrap: links to the packages' folders (packages.link)."""


def unsafe_command(staged: Path, limits: Limits, python: str | None = None) -> list[str]:
    """The bot kit as a plain subprocess; the staged copy's PACKAGE_LINKS is its packages."""
    python = python or bot_python()
    botkit = str(staged / "sdk" / "botkit.py")
    args = [python, "-I", "-S", "-B", botkit, str(staged / "bot"), *limits.botkit_args()]
    return [*args, f"--packages={staged / PACKAGE_LINKS}", "--seccomp=best-effort"]


def bare_command(staged: Path, python: str | None = None) -> list[str]:
    """The same bot kit with no isolation at all (the benchmark's baseline)."""
    python = python or bot_python()
    botkit = str(staged / "sdk" / "botkit.py")
    args = [python, "-I", "-S", "-B", botkit, str(staged / "bot")]
    return [*args, f"--packages={staged / PACKAGE_LINKS}", "--seccomp=off"]
