"""A WSGI app that takes as long to load as the platform's Django app does on a busy host, and
says on stderr when a worker has loaded it (tests/deploy/test_gunicorn.py). Asked with
``?spin=N``, it counts to N first: a request that costs as much CPU as one wants."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

time.sleep(float(os.environ.get("SLOW_APP_LOAD_SECONDS", "1.5")))
sys.stderr.write(f"slow app loaded in {os.getpid()}\n")
sys.stderr.flush()


def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    spin = environ.get("QUERY_STRING", "").removeprefix("spin=")
    for _ in range(int(spin) if spin.isdigit() else 0):
        pass
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [str(os.getpid()).encode()]
