"""Writes one endless line straight onto every file descriptor it can find."""

import os


def act(observation, legal):
    junk = b"x" * (1 << 20)
    for fd in range(3, 16):
        try:
            os.write(fd, junk)
        except OSError:
            pass
    return legal["actions"][0]
