"""deploy/nginx/backroom.conf, run by nginx: what it answers itself, before or instead of the app,
is JSON under /api/ as the API's own errors are (docs/api.md), and nginx's page elsewhere; the
app's own answers pass unchanged.

The site's server block is run as written, on a local port without TLS (its listen and
certificate lines left out; HTTP/1.1), proxying to a port of the test's: first held shut (the
upstream gunicorn down), then served by a small stand-in for the app. Its read timeout is cut
from 60 s to 1 s so that a silent app is met in a test."""

from __future__ import annotations

import http.client
import json
import re
import shutil
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.deploy.conftest import ROOT
from tests.support.processes import Processes, free_port, wait_for_port

SITE = ROOT / "deploy" / "nginx" / "backroom.conf"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"

pytestmark = pytest.mark.skipif(
    not Path(NGINX).exists(), reason="nginx is not installed (make isolation-tools installs it)"
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
    assert "proxy_read_timeout 60s;" in body
    body = body.replace("proxy_read_timeout 60s;", "proxy_read_timeout 1s;")
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


class App(BaseHTTPRequestHandler):
    """The app's own errors, as it writes them: they must reach the client as they are."""

    ANSWERS = {
        "/api/own-503/": (503, {"Retry-After": "7"}, b'{"detail": "the database is unavailable"}'),
        "/api/own-413/": (413, {}, b'{"detail": "the body is 2.6 MB; at most 2.5 MB"}'),
    }

    silent = threading.Event()
    """Set when the test is done: until then /api/slow/ says nothing (nginx gives up first)."""

    def do_GET(self) -> None:
        if self.path == "/api/slow/":
            App.silent.wait(30)
        status, headers, body = self.ANSWERS.get(self.path, (200, {}, b"{}"))
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **headers}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base's name)
        pass


@pytest.fixture
def site(processes: Processes, tmp_path: Path) -> Iterator[tuple[int, socket.socket]]:
    """nginx on a port of its own, and its upstream's port held shut (bound, not listening)."""
    shut = socket.socket()
    shut.bind(("127.0.0.1", 0))
    port = free_port()
    conf = tmp_path / "nginx.conf"
    conf.write_text(runnable(SITE.read_text(), port, shut.getsockname()[1], tmp_path))
    server = processes.start(
        [NGINX, "-c", str(conf), "-p", str(tmp_path), "-e", str(tmp_path / "error.log")],
        None,
        what="nginx",
    )
    wait_for_port(port, 30, "nginx", server)
    yield port, shut
    shut.close()


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


def test_what_nginx_answers_itself_is_the_apis_json_under_api_and_its_page_elsewhere(
    site: tuple[int, socket.socket],
) -> None:
    port, shut = site
    upload = b"x" * (4 * 1024 * 1024)  # over client_max_body_size: refused on its length
    long_header = {"X-Long": "a" * 10_000}  # one line over large_client_header_buffers' 8 kB

    status, kind, body, _ = ask(port, "POST", "/api/bots/", upload)
    assert (status, kind) == (413, "application/json")
    assert "3 MB" in json.loads(body)["detail"]
    status, kind, body, _ = ask(port, "GET", "/api/matches/", headers=long_header)
    assert (status, kind) == (431, "application/json")
    assert "8 kB" in json.loads(body)["detail"]
    status, kind, body, headers = ask(port, "GET", "/api/matches/")  # the app is down
    assert (status, kind, headers.get("retry-after")) == (503, "application/json", "5")
    assert "try again" in json.loads(body)["detail"]
    # The site's pages: nginx's own pages, with the codes a browser knows.
    assert ask(port, "POST", "/bots/new/", upload)[:2] == (413, "text/html")
    status, kind, body, _ = ask(port, "GET", "/matches/", headers=long_header)
    assert (status, kind) == (400, "text/html") and b"Header Or Cookie Too Large" in body
    status, kind, _, headers = ask(port, "GET", "/matches/")
    assert (status, kind, headers.get("retry-after")) == (503, "text/html", "5")

    # The app up: its own errors pass as it wrote them; silent past the timeout, a JSON 504.
    upstream = shut.getsockname()[1]
    shut.close()
    app = ThreadingHTTPServer(("127.0.0.1", upstream), App)
    threading.Thread(target=app.serve_forever, daemon=True).start()
    try:
        for path, (code, extra, written) in App.ANSWERS.items():
            status, kind, body, headers = ask(port, "GET", path)
            assert (status, kind, body) == (code, "application/json", written), path
            assert all(headers.get(k.lower()) == v for k, v in extra.items()), path
        assert ask(port, "GET", "/api/fine/")[:3] == (200, "application/json", b"{}")
        status, kind, body, headers = ask(port, "GET", "/api/slow/")
        assert (status, kind, "retry-after" in headers) == (504, "application/json", False)
        assert "within 60 s" in json.loads(body)["detail"]
    finally:
        App.silent.set()
        app.shutdown()
        app.server_close()
