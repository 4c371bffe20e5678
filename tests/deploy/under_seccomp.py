"""Run a command under a Docker seccomp profile, as the Docker engine would load it for a
container with the given capabilities (tests/deploy/test_isolation.py).

    python tests/deploy/under_seccomp.py PROFILE.json CAP_A,CAP_B -- command ...

The profile's rules are kept or left out as the engine does (``includes``/``excludes`` by
capability and architecture, ``minKernel``), compiled with libseccomp for this machine's
architecture and loaded into this process, which then becomes the command: the filter holds
for it and everything it starts. Conditions on the same argument become rules of their own
(any of them), as runc adds them.
"""

from __future__ import annotations

import ctypes
import json
import os
import platform
import sys
from collections import Counter
from typing import Any

ALLOW = 0x7FFF0000
OPS = {"NE": 1, "LT": 2, "LE": 3, "EQ": 4, "GE": 5, "GT": 6, "MASKED_EQ": 7}
ARCH = {"x86_64": "amd64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())


class ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


def action(rule: dict[str, Any]) -> int:
    if rule["action"] == "SCMP_ACT_ALLOW":
        return ALLOW
    if rule["action"] == "SCMP_ACT_ERRNO":
        return 0x00050000 | (int(rule.get("errnoRet", 1)) & 0xFFFF)
    raise ValueError(f"action {rule['action']} is not used by the profiles here")


def kernel() -> tuple[int, ...]:
    return tuple(int(p) for p in platform.release().split("-")[0].split(".")[:2])


def applies(rule: dict[str, Any], caps: set[str]) -> bool:
    """Whether the engine keeps ``rule`` for a container with ``caps`` on this machine."""
    inc, exc = rule.get("includes") or {}, rule.get("excludes") or {}
    if inc.get("caps") and not set(inc["caps"]) <= caps:
        return False
    if inc.get("arches") and ARCH not in inc["arches"]:
        return False
    if inc.get("minKernel") and kernel() < tuple(int(p) for p in inc["minKernel"].split(".")):
        return False
    if exc.get("caps") and set(exc["caps"]) & caps:
        return False
    return not (exc.get("arches") and ARCH in exc["arches"])


def conditions(rule: dict[str, Any]) -> list[list[ArgCmp]]:
    """Each rule's argument conditions as libseccomp takes them: all at once (every one must
    hold), or one rule per condition when several test the same argument."""
    cmps = [
        ArgCmp(a["index"], OPS[a["op"].removeprefix("SCMP_CMP_")], a["value"], a.get("valueTwo", 0))
        for a in rule.get("args") or []
    ]
    if any(n > 1 for n in Counter(a["index"] for a in rule.get("args") or []).values()):
        return [[c] for c in cmps]
    return [cmps]


def load(profile: dict[str, Any], caps: set[str]) -> None:
    lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(ArgCmp),
    ]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    default = action({"action": profile["defaultAction"], "errnoRet": profile["defaultErrnoRet"]})
    ctx = lib.seccomp_init(default)
    for rule in profile["syscalls"]:
        if not applies(rule, caps):
            continue
        for name in rule["names"]:
            number = lib.seccomp_syscall_resolve_name(name.encode())
            if number < 0:  # not a system call of this architecture
                continue
            for cmps in conditions(rule):
                array = (ArgCmp * max(1, len(cmps)))(*cmps)
                rc = lib.seccomp_rule_add_array(ctx, action(rule), number, len(cmps), array)
                if rc < 0:
                    raise OSError(-rc, f"rule for {name} refused")
    rc = lib.seccomp_load(ctx)
    if rc < 0:
        raise OSError(-rc, "seccomp_load failed")


def main() -> None:
    path, caps, separator, *command = sys.argv[1:]
    assert separator == "--" and command, __doc__
    with open(path) as handle:
        load(json.load(handle), {c for c in caps.split(",") if c})
    os.execvp(command[0], command)


if __name__ == "__main__":
    main()
