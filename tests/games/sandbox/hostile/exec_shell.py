"""Tries to run a shell, through exec and through subprocess."""

import contextlib
import os
import subprocess


def act(observation, legal):
    marker = "/tmp/sandbox-exec-marker"
    with contextlib.suppress(OSError):
        subprocess.run(["/bin/sh", "-c", f"touch {marker}"], check=False)
    os.execv("/bin/sh", ["sh", "-c", f"touch {marker}"])
