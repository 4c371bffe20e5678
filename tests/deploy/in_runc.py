"""Run a command in a runc container set up as deploy/compose.yml sets up the worker's: root with
the given capabilities only, no-new-privileges, the given seccomp profile, runc's own masked and
read-only paths (/proc/sys read-only, as in any Docker container) (tests/deploy/test_isolation.py).

    python tests/deploy/in_runc.py BUNDLE_DIR PROFILE.json CAP_A,CAP_B -- command ...

The container's root is an empty folder under BUNDLE_DIR, with /usr, /etc and the interpreter's
prefix bound read-only, this checkout read-write (MEDIA_ROOT is in it) and the host's /tmp, where
the sandbox stages each bot. The command runs in the checkout with this process's environment,
on the host's network (the test services listen on loopback), where Docker would give the
container a network of its own: no system call differs. This process becomes ``runc run``,
which forwards it the signals it gets (SIGTERM: the worker's warm shutdown) and exits as the
command does.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def oci_seccomp(profile: dict[str, Any]) -> dict[str, Any]:
    """The profile as the engine hands it to runc: the same rules, without the comments.
    Conditions by capability or architecture are the engine's to resolve: ours has none."""
    rules = []
    for rule in profile["syscalls"]:
        if rule.get("includes") or rule.get("excludes"):
            raise ValueError(f"conditional rule not supported here: {rule['names']}")
        rules.append({k: rule[k] for k in ("names", "action", "args", "errnoRet") if k in rule})
    return {
        "defaultAction": profile["defaultAction"],
        "defaultErrnoRet": profile["defaultErrnoRet"],
        "syscalls": rules,
    }


def bind(path: Path | str, writable: bool = False) -> dict[str, Any]:
    options = ["rbind", "rw" if writable else "ro"]
    return {"destination": str(path), "type": "bind", "source": str(path), "options": options}


def bundle(directory: Path, profile: dict[str, Any], caps: list[str], command: list[str]) -> None:
    """runc's default spec (``runc spec``), made into the worker's container."""
    subprocess.run(["runc", "spec", "--bundle", str(directory)], check=True)
    config = json.loads((directory / "config.json").read_text())
    rootfs = directory / "rootfs"
    (rootfs / "run").mkdir(parents=True)  # the uid pool's lock files (games/sandbox/isolation.py)
    for name in ("bin", "lib", "lib64", "sbin"):
        (rootfs / name).symlink_to(f"usr/{name}")  # as in the image's Debian
    config["root"] = {"path": str(rootfs), "readonly": False}
    config["mounts"] += [
        bind("/usr"),
        bind("/etc"),
        bind(Path(sys.base_prefix).resolve()),
        bind(ROOT, writable=True),
        bind("/tmp", writable=True),  # the host's /tmp, where the sandbox stages each bot
    ]
    process = config["process"]
    process.update(
        terminal=False,
        args=command,
        cwd=str(ROOT),
        env=[f"{k}={v}" for k, v in os.environ.items()],
        capabilities={k: caps for k in ("bounding", "effective", "permitted")},
        noNewPrivileges=True,
    )
    process.pop("rlimits", None)
    # The host's name, where Docker would name the container: a worker's name (worker@%h) is
    # then the same inside and out, for the health check that pings it by name.
    config["hostname"] = socket.gethostname()
    linux = config["linux"]
    linux["namespaces"] = [n for n in linux["namespaces"] if n["type"] != "network"]
    linux["seccomp"] = oci_seccomp(profile)
    (directory / "config.json").write_text(json.dumps(config, indent=1))


def main() -> None:
    directory, profile, caps, separator, *command = sys.argv[1:]
    assert separator == "--" and command, __doc__
    path = Path(directory)
    path.mkdir(parents=True, exist_ok=True)
    with open(profile) as handle:
        bundle(path, json.load(handle), [c for c in caps.split(",") if c], command)
    name = f"backroom-test-{os.getpid()}"
    state = str(path / "state")
    os.execvp("runc", ["runc", "--root", state, "run", "--bundle", str(path), name])


if __name__ == "__main__":
    main()
