"""Sleeps the number of seconds the options say before answering each move."""

import time

nap = 0.0


def start(info):
    global nap
    nap = info["options"]["nap"]


def act(observation, legal):
    time.sleep(nap)
    return legal["actions"][0]
