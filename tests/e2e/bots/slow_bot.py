"""A legal but slow bot: gives the fault test time to kill the worker mid-match."""

import random
import time


def act(observation, legal):
    time.sleep(0.08)
    if legal.get("actions"):
        return random.choice(legal["actions"])
    return {"place": []}
