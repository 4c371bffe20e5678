"""deploy/nginx/backroom.conf, run by nginx: what it answers itself, before a request reaches the
app, is JSON under /api/ as the API's own errors are (docs/api.md), and nginx's page elsewhere.

The site's server block is run as written, on a local port without TLS (its certificate lines
left out), proxying to a port where nothing answers: the upstream gunicorn is down."""

from __future__ import annotations

import http.client
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.deploy.conftest import ROOT
from tests.support.processes import Processes, free_port, wait_for_port

SITE = ROOT / "deploy" / "nginx" / "backroom.conf"

pytestmark = pytest.mark.skipif(
    shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists(),
    reason="nginx is not installed (make isolation-tools installs it)",
)


def runnable(site: str, port: int, upstream: int, tmp: Path) -> str:
    """The site file as a whole nginx configuration on ``port``: its upstream pointed at
    ``upstream``, its TLS server's listen and certificate lines replaced by a plain listen."""
    upstream_block = re.search(r"upstream backroom_web \{.*?\n\}", site, re.S)
    assert upstream_block is not None
    servers = site.split("\nserver {")
    assert len(servers) == 3, "an upstream, the redirect to HTTPS, the site"
    tls = "server {" + servers[2]
    body = re.sub(r"\n\s*(listen|ssl_certificate|ssl_certificate_key) [^\n]*", "", tls)
    body = body.replace("server {", f"server {{\n    listen 127.0.0.1:{port};", 1)
    temp = " ".join(
        f"{kind}_temp_path {tmp / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return (
        f"daemon off;\nuser root root;\npid {tmp / 'nginx.pid'};\nerror_log {tmp / 'error.log'};\n"
        "events { worker_connections 64; }\n"
        f"http {{\n    access_log off;\n    {temp}\n"
        + upstream_block.group(0).replace("127.0.0.1:8000", f"127.0.0.1:{upstream}")
        + "\n"
        + body
        + "\n}\n"
    )


@pytest.fixture
def nginx(processes: Processes, tmp_path: Path) -> Iterator[int]:
    port = free_port()
    conf = tmp_path / "nginx.conf"
    conf.write_text(runnable(SITE.read_text(), port, free_port(), tmp_path))
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    server = processes.start([binary, "-c", str(conf), "-p", str(tmp_path)], None, what="nginx")
    wait_for_port(port, 30, "nginx", server)
    yield port


def ask(
    port: int, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
) -> tuple[int, str, bytes, dict[str, str]]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    sent = {"Host": "backroom.example", "Content-Length": str(len(body)), **(headers or {})}
    connection.request(method, path, body=body or None, headers=sent)
    response = connection.getresponse()
    return (
        response.status,
        response.getheader("Content-Type") or "",
        response.read(),
        {k.lower(): v for k, v in response.getheaders()},
    )


def test_what_nginx_refuses_itself_is_the_apis_json_under_api_and_its_page_elsewhere(
    nginx: int,
) -> None:
    upload = b"x" * (4 * 1024 * 1024)  # over client_max_body_size: refused on its length
    long_header = {"X-Long": "a" * 10_000}  # one line over large_client_header_buffers' 8 kB

    status, kind, body, _ = ask(nginx, "POST", "/api/bots/", upload)
    assert (status, kind) == (413, "application/json")
    assert "3 MB" in json.loads(body)["detail"]
    status, kind, body, _ = ask(nginx, "GET", "/api/matches/", headers=long_header)
    assert (status, kind) == (431, "application/json")
    assert "8 kB" in json.loads(body)["detail"]
    status, kind, body, headers = ask(nginx, "GET", "/api/matches/")  # gunicorn is down
    assert (status, kind, headers.get("retry-after")) == (503, "application/json", "5")
    assert "try again" in json.loads(body)["detail"]

    # The site's pages: nginx's own pages, with the same codes a browser knows.
    assert ask(nginx, "POST", "/bots/new/", upload)[:2] == (413, "text/html")
    assert ask(nginx, "GET", "/matches/", headers=long_header)[:2] == (400, "text/html")
    status, kind, _, headers = ask(nginx, "GET", "/matches/")
    assert (status, kind, headers.get("retry-after")) == (503, "text/html", "5")
