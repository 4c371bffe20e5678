"""A legal bot that takes a quarter of a second a move (under the move limit): its match lasts
long enough for several outages to hit it while it is being played."""

import random
import time


def act(observation, legal):
    time.sleep(0.25)
    if legal.get("actions"):
        return random.choice(legal["actions"])
    return {"place": []}
