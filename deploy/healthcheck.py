"""The web container's health check: is this instance answering pages? Exit 0 if so, else 1.

Asks the local gunicorn for the login page (cheap: no query beyond the session) the way the
proxy would: with a Host the site allows and ``X-Forwarded-Proto: https``, so that neither
ALLOWED_HOSTS nor the HTTPS redirect of the production settings turns a healthy answer into a
400 or a 301. Standard library only; run as ``python deploy/healthcheck.py``.
"""

from __future__ import annotations

import http.client
import os
import sys


def allowed_host() -> str:
    """A name the site serves: the first of ALLOWED_HOSTS, a wildcard's domain made concrete."""
    first = os.environ.get("ALLOWED_HOSTS", "localhost").split(",")[0].strip()
    if first in {"", "*"}:
        return "localhost"
    return "health" + first if first.startswith(".") else first


def main() -> int:
    port = int(os.environ.get("WEB_PORT", "8000"))
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=4)
    try:
        connection.request(
            "GET",
            "/accounts/login/",
            headers={"Host": allowed_host(), "X-Forwarded-Proto": "https"},
        )
        status = connection.getresponse().status
    except OSError as exc:
        print(f"web on 127.0.0.1:{port} does not answer: {exc}", file=sys.stderr)
        return 1
    if status != 200:
        print(f"web on 127.0.0.1:{port} answered {status} to /accounts/login/", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
