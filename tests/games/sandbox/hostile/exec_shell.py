"""Tries to run a shell, through exec and through subprocess."""

import os
import subprocess


def act(observation, legal):
    marker = "/tmp/sandbox-exec-marker"
    try:
        subprocess.run(["/bin/sh", "-c", f"touch {marker}"], check=False)
    except OSError:
        pass
    os.execv("/bin/sh", ["sh", "-c", f"touch {marker}"])
