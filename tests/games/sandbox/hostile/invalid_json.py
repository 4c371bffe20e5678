"""Writes a line of non-JSON onto the protocol channel, then answers normally."""

import os


def act(observation, legal):
    for fd in range(3, 16):
        try:
            os.write(fd, b"{this is not json\n")
        except OSError:
            pass
    return legal["actions"][0]
