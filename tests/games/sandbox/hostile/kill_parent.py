"""Tries to kill its parent, every process it can, and pid 1: each attempt on its own, so that
one refused does not spare the next, then fails with what each attempt got."""

import os
import signal


def act(observation, legal):
    got = []
    for target, pid in (("its parent", os.getppid()), ("every process", -1), ("pid 1", 1)):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError as exc:
            got.append(f"kill({pid}, SIGKILL) of {target}: {type(exc).__name__}")
        else:
            got.append(f"kill({pid}, SIGKILL) of {target}: sent")
    raise RuntimeError("; ".join(got))
