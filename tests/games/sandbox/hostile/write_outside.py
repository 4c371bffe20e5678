"""Writes everywhere it can think of; only its private /tmp should take it."""

import os

targets = []


def start(info):
    targets.extend(info["options"]["targets"])


def act(observation, legal):
    results = {}
    for path in [*targets, "/bot/pwned", "/usr/pwned", "/pwned", "/sdk/botkit.py", "/tmp/ok"]:
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write("pwned")
            results[path] = "written"
        except OSError as exc:
            results[path] = f"ERR {type(exc).__name__}"
    try:
        with open("/tmp/big", "wb") as f:
            for _ in range(64):
                f.write(b"x" * (1 << 20))
        results["/tmp/big"] = "written"
    except OSError as exc:
        results["/tmp/big"] = f"ERR {type(exc).__name__}"
    return {"pick": 0, "results": results}
