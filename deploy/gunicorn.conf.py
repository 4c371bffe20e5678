"""gunicorn settings for the web processes: ``gunicorn -c deploy/gunicorn.conf.py``.

Used by the Procfile (``make up``), the container image and the systemd unit alike; every value
can be changed from the environment, so one file serves all three.

The control socket: gunicorn (23.1+) opens one for ``gunicornc`` at ``~/.gunicorn/gunicorn.ctl``
unless told otherwise, the same path for every instance a user starts on a host, so a second
instance (a test run beside ``make up``, two sites on one host) takes the first one's socket
over. Each instance here gets its own, named after what it binds, in the runtime directory
systemd gives the unit (``RUNTIME_DIRECTORY``) or else ``var/run/`` of the checkout.

Worker restarts never coincide. A worker that reaches ``max_requests`` stops taking requests
and a new one loads the app, a few seconds during which only its siblings serve; two workers
at their limits together (the random jitter does not prevent it) left nothing serving. So the
workers serving now are listed in a file beside the control socket, under an flock (released
by the kernel if its holder dies), and a worker at its limit restarts only when all its
siblings are serving: otherwise it serves on and asks again at its next request.

CPU per request, for the benches: when ``BACKROOM_REQUEST_CPU_LOG`` names a folder, each worker
appends one line per request to ``<folder>/<pid>.log``: ``METHOD path status cpu_ms``, the
worker's CPU time (``time.process_time()``) from ``pre_request`` to ``post_request``, so the
view, the response's writing and closing (Django's request_finished) and the access log line.
Exact for sync workers, which serve one request at a time; with threads a line would count its
siblings' work too. What no line holds is the master's, the accept loop's and the parsing of
a request line, and a worker's start. Unset (production), nothing is measured or written.
"""

from __future__ import annotations

import fcntl
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

wsgi_app = "config.wsgi:application"

bind = [
    os.environ.get("GUNICORN_BIND")
    or f"{os.environ.get('WEB_HOST', '127.0.0.1')}:{os.environ.get('WEB_PORT', '8000')}"
]
# Sync workers: the views are short database reads and writes; long work runs on Celery.
# docs/scaling.md: about 2 per core, set with WEB_CONCURRENCY (which gunicorn also reads itself).
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = 30
keepalive = 5  # behind nginx, which keeps its upstream connections open
# Recycle a worker now and then, so that a slow leak never grows into an outage; never two at
# once (the hooks below): a worker loads the whole app before it serves again.
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "2000"))
max_requests_jitter = int(os.environ.get("GUNICORN_MAX_REQUESTS_JITTER", "200"))
accesslog = "-"
# X-Forwarded-* are believed from these addresses only (the proxy in front: deploy/nginx/).
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")


def _control_socket() -> str:
    explicit = os.environ.get("GUNICORN_CONTROL_SOCKET")
    if explicit:
        return explicit
    runtime = Path(os.environ.get("RUNTIME_DIRECTORY", "").split(":")[0] or ROOT / "var" / "run")
    runtime.mkdir(parents=True, exist_ok=True)
    name = re.sub(r"[^A-Za-z0-9.]+", "-", "_".join(bind)).strip("-")
    return str(runtime / f"gunicorn-{name}.ctl")


control_socket = _control_socket()
request_cpu_log = os.environ.get("BACKROOM_REQUEST_CPU_LOG", "")
serving_file = Path(control_socket).with_suffix(".serving")
"""The pids of the workers that have loaded the app and are not restarting, one a line."""


@contextmanager
def _serving() -> Iterator[list[int]]:
    """The serving pids, locked against the other workers and the master; changes are saved."""
    with open(serving_file, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        pids = [int(line) for line in handle.read().split()]
        before = list(pids)
        yield pids
        if pids != before:
            handle.seek(0)
            handle.truncate()
            handle.write("".join(f"{pid}\n" for pid in pids))


def on_starting(server: Any) -> None:
    """A new master: no worker of an earlier one is serving."""
    serving_file.unlink(missing_ok=True)


def post_worker_init(worker: Any) -> None:
    if request_cpu_log:
        path = Path(request_cpu_log) / f"{worker.pid}.log"
        worker.request_cpu_file = open(path, "a", buffering=1)  # noqa: SIM115 (the worker's life)
    with _serving() as pids:
        pids.append(worker.pid)


def pre_request(worker: Any, req: Any) -> None:
    """The request that reaches ``max_requests`` restarts the worker only if every sibling is
    serving; else the worker serves this one too and asks again at its next."""
    if request_cpu_log:
        worker.request_cpu_started = time.process_time()
    if worker.nr + 1 < worker.max_requests:
        return
    with _serving() as pids:
        if len(set(pids) - {worker.pid}) < worker.cfg.workers - 1:
            worker.max_requests = worker.nr + 2  # the worker counts this request, then compares
            return
        if worker.pid in pids:
            pids.remove(worker.pid)


def post_request(worker: Any, req: Any, environ: Any, resp: Any) -> None:
    """With ``BACKROOM_REQUEST_CPU_LOG`` set: this request's line (the module's docstring)."""
    if not request_cpu_log:
        return
    cpu_ms = 1000 * (time.process_time() - worker.request_cpu_started)
    status = getattr(resp, "status_code", None) or 0  # 0: no response was begun
    worker.request_cpu_file.write(f"{req.method} {req.path} {status} {cpu_ms:.3f}\n")


def child_exit(server: Any, worker: Any) -> None:
    """A worker that ended otherwise (killed, timed out) no longer serves."""
    with _serving() as pids:
        if worker.pid in pids:
            pids.remove(worker.pid)
