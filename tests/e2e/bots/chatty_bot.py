"""A legal bot that logs its thinking to stderr (visible to its owner only)."""

import random
import sys

SECRET = "owner-only-trace"


def act(observation, legal):
    print(f"{SECRET}: deciding {legal['kind']}", file=sys.stderr)
    if legal.get("actions"):
        return random.choice(legal["actions"])
    return {"place": []}
