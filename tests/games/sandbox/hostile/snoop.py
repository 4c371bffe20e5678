"""Reads what it must not: platform files, host secrets, the environment, host processes."""

import os

paths = []


def start(info):
    paths.extend(info["options"]["paths"])


def act(observation, legal):
    found = {}
    for path in [*paths, "/etc/shadow", "/etc/passwd", "/root", "/proc/1/environ", "/proc"]:
        try:
            if os.path.isdir(path):
                found[path] = sorted(os.listdir(path))
            else:
                with open(path, "rb") as f:
                    found[path] = f.read(200).decode("latin-1")
        except OSError as exc:
            found[path] = f"ERR {type(exc).__name__}"
    return {"pick": 0, "found": found, "env": dict(os.environ), "uid": os.getuid()}
