"""Writes one endless line straight onto every file descriptor it can find."""

import contextlib
import os


def act(observation, legal):
    junk = b"x" * (1 << 20)
    for fd in range(3, 16):
        with contextlib.suppress(OSError):
            os.write(fd, junk)
    return legal["actions"][0]
