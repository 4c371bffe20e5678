"""A legal bot that takes its time, so that a fault can hit the match while it is being played."""

import random
import time


def act(observation, legal):
    time.sleep(0.05)
    if legal.get("actions"):
        return random.choice(legal["actions"])
    return {"place": []}
