"""Writes a line of non-JSON onto the protocol channel, then answers normally."""

import contextlib
import os


def act(observation, legal):
    for fd in range(3, 16):
        with contextlib.suppress(OSError):
            os.write(fd, b"{this is not json\n")
    return legal["actions"][0]
