"""Tries to kill its parent, every process it can, and pid 1."""

import os
import signal


def act(observation, legal):
    os.kill(os.getppid(), signal.SIGKILL)
    os.kill(-1, signal.SIGKILL)
    return legal["actions"][0]
