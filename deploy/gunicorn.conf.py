"""gunicorn settings for the web processes: ``gunicorn -c deploy/gunicorn.conf.py``.

Used by the Procfile (``make up``), the container image and the systemd unit alike; every value
can be changed from the environment, so one file serves all three.

The control socket: gunicorn (23.1+) opens one for ``gunicornc`` at ``~/.gunicorn/gunicorn.ctl``
unless told otherwise, the same path for every instance a user starts on a host, so a second
instance (a test run beside ``make up``, two sites on one host) takes the first one's socket
over. Each instance here gets its own, named after what it binds, in the runtime directory
systemd gives the unit (``RUNTIME_DIRECTORY``) or else ``var/run/`` of the checkout.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

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
# Recycle a worker now and then, so that a slow leak never grows into an outage.
max_requests = 2000
max_requests_jitter = 200
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
