"""Runs an author's ``bot.py`` behind protocol v1 (JSON lines on stdin/stdout).

The platform starts ``python -I -S -B botkit.py BOT_DIR [limits...]`` inside the
sandbox. Before any of the author's code is imported, this bot kit moves the
protocol onto private file descriptors (so the bot's ``print()`` and
``input()`` cannot touch it), lowers the resource limits and installs a
seccomp filter: from then on no exec, no new process, no socket. Standard
library only, single file, because it is copied verbatim into each sandbox.
``--packages DIR`` is where the packages a bot may import beside the standard
library are (games/sandbox/packages.py): appended to ``sys.path``.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import errno
import importlib
import json
import os
import resource
import sys
import traceback
from typing import Any

PROTOCOL = 1

# libseccomp constants (seccomp.h); the library is loaded through ctypes.
_ACT_ALLOW = 0x7FFF0000
_CMP_NE = 1
_CMP_MASKED_EQ = 7
_CLONE_THREAD = 0x00010000


def _act_errno(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


# Denied outright: starting programs or processes, any socket, and every way
# to reach outside the process (tracing, namespaces, io_uring which can
# connect without the connect syscall, other processes' signals and memory).
_DENIED = [
    "execve",
    "execveat",
    "fork",
    "vfork",
    "socket",
    "socketpair",
    "connect",
    "bind",
    "listen",
    "accept",
    "accept4",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "pidfd_open",
    "pidfd_getfd",
    "pidfd_send_signal",
    "tkill",
    "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "bpf",
    "perf_event_open",
    "keyctl",
    "add_key",
    "request_key",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "name_to_handle_at",
    "open_by_handle_at",
    # Memory that RLIMIT_AS does not count and the /tmp cap does not cover: a memfd's pages
    # (written with write(), never mapped) and System V segments and queues, which outlive
    # their attachment until the sandbox's IPC namespace ends.
    "memfd_create",
    "memfd_secret",
    "shmget",
    "shmat",
    "msgget",
    "msgsnd",
    "semget",
    "mq_open",
]


def install_seccomp() -> None:
    """Deny exec, fork, process clones, sockets and signals to other processes.

    Denied calls fail with EPERM (clone3 with ENOSYS, so that threads fall
    back to plain ``clone`` with CLONE_THREAD, which stays allowed).
    """
    lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    ]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    ctx = lib.seccomp_init(_ACT_ALLOW)
    if not ctx:
        raise OSError("seccomp_init failed")
    deny = _act_errno(errno.EPERM)
    me = os.getpid()

    def rule(action: int, name: str, *cmps: tuple[int, int, int, int]) -> None:
        nr = lib.seccomp_syscall_resolve_name(name.encode())
        if nr < 0:  # unknown to this libseccomp/arch: nothing to deny
            return
        arr = (_ArgCmp * max(1, len(cmps)))(*[_ArgCmp(*c) for c in cmps])
        rc = lib.seccomp_rule_add_array(ctx, action, nr, len(cmps), arr)
        if rc < 0:
            raise OSError(-rc, f"seccomp rule for {name} failed")

    try:
        for name in _DENIED:
            rule(deny, name)
        rule(_act_errno(errno.ENOSYS), "clone3")
        # clone without CLONE_THREAD makes a process; with it, a thread.
        rule(deny, "clone", (0, _CMP_MASKED_EQ, _CLONE_THREAD, 0))
        rule(deny, "kill", (0, _CMP_NE, me, 0))
        rule(deny, "tgkill", (0, _CMP_NE, me, 0))
        rc = lib.seccomp_load(ctx)
        if rc < 0:
            raise OSError(-rc, "seccomp_load failed")
    finally:
        lib.seccomp_release(ctx)


def set_limits(args: argparse.Namespace) -> None:
    """Lower this process's rlimits; an unprivileged process cannot raise them again."""
    pairs = [
        (resource.RLIMIT_AS, args.memory),
        (resource.RLIMIT_CPU, args.cpu),
        (resource.RLIMIT_NPROC, args.procs),
        (resource.RLIMIT_FSIZE, args.fsize),
        (resource.RLIMIT_NOFILE, args.files),
        (resource.RLIMIT_CORE, 0),
    ]
    for which, value in pairs:
        if value is None:
            continue
        _soft, hard = resource.getrlimit(which)
        new = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(which, (new, new))


class Channel:
    """The protocol's private pipe ends; fds 0 and 1 become /dev/null and stderr."""

    def __init__(self) -> None:
        self._in = os.fdopen(os.dup(0), "rb")
        self._out = os.dup(1)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.dup2(2, 1)
        sys.stdin = open(os.devnull)  # noqa: SIM115 - lives as long as the process
        sys.stdout = sys.stderr

    def read(self) -> dict[str, Any] | None:
        line = self._in.readline()
        if not line:
            return None
        msg = json.loads(line)
        return msg if isinstance(msg, dict) else None

    def send(self, msg: dict[str, Any]) -> None:
        _flush_output()  # whatever the bot printed belongs to this move (or to its start)
        data = (json.dumps(msg, allow_nan=False, separators=(",", ":")) + "\n").encode()
        view = memoryview(data)
        while view:
            view = view[os.write(self._out, view) :]


def _flush_output() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a broken stderr must not lose a reply
            stream.flush()


def _error(kind: str, message: str, msg_id: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "error", "error": kind, "message": message[-4000:]}
    if msg_id is not None:
        out["id"] = msg_id
    return out


def _fault(exc: BaseException) -> str:
    return "memory" if isinstance(exc, MemoryError) else "crash"


def serve(channel: Channel, bot_dir: str) -> int:
    """The protocol loop. Returns the process exit status."""
    start = channel.read()
    if start is None or start.get("type") != "start":
        return 2
    try:
        sys.path.insert(0, bot_dir)
        bot = importlib.import_module("bot")
        if not callable(getattr(bot, "act", None)):
            raise AttributeError("bot.py defines no act(observation, legal) function")
        if callable(getattr(bot, "start", None)):
            bot.start(start)
    except BaseException as exc:
        traceback.print_exc()
        channel.send(_error(_fault(exc), traceback.format_exc()))
        return 1
    channel.send({"type": "ready", "protocol": PROTOCOL})
    while True:
        msg = channel.read()
        if msg is None:
            return 0
        kind = msg.get("type")
        if kind == "end":
            if callable(getattr(bot, "end", None)):
                try:
                    bot.end(msg.get("outcome"))
                except BaseException:
                    traceback.print_exc()
            _flush_output()  # what end() printed is the last of the bot's log
            return 0
        if kind != "act":
            continue
        msg_id = msg.get("id")
        try:
            action = bot.act(msg.get("observation"), msg.get("legal"))
        except BaseException as exc:
            traceback.print_exc()
            channel.send(_error(_fault(exc), traceback.format_exc(), msg_id))
            continue
        try:
            channel.send({"type": "action", "id": msg_id, "action": action})
        except (TypeError, ValueError) as exc:
            channel.send(
                _error("bad_output", f"act() returned something that is not JSON: {exc}", msg_id)
            )
        except MemoryError:
            channel.send(_error("memory", "out of memory while encoding the action", msg_id))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("bot_dir")
    parser.add_argument("--memory", type=int)
    parser.add_argument("--cpu", type=int)
    parser.add_argument("--procs", type=int)
    parser.add_argument("--fsize", type=int)
    parser.add_argument("--files", type=int)
    parser.add_argument("--packages", help="the folder of the packages a bot may import")
    parser.add_argument("--seccomp", choices=["required", "best-effort", "off"], default="required")
    args = parser.parse_args(argv)
    if args.packages:  # after the standard library: a package never shadows a stdlib module
        sys.path.append(args.packages)
    channel = Channel()
    set_limits(args)
    if args.seccomp != "off":
        try:
            install_seccomp()
        except OSError as exc:
            if args.seccomp == "required":
                channel.send(_error("crash", f"sandbox: cannot install the seccomp filter: {exc}"))
                return 3
            print(f"sandbox: WARNING: no seccomp filter ({exc})", file=sys.stderr)
    return serve(channel, args.bot_dir)


if __name__ == "__main__":
    sys.exit(main())
