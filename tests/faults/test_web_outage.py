"""Postgres down, restarting or out of connections: every door of the web answers 503 with
Retry-After (JSON under /api/, a page elsewhere), never a 500, and serves again once it is back."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.urls import get_resolver

from tests.api.test_endpoint_matrix import _routes
from tests.faults.conftest import Proc, Stack, platform_env, wait_until
from tests.faults.services import OwnPostgres
from tests.support.processes import free_port
from tournaments.site.pages.errors import RETRY_AFTER_SECONDS

pytestmark = [pytest.mark.faults, pytest.mark.e2e]

# Doors that read the database on every request: each must be a 503 while it is away.
DATABASE_DOORS = [
    ("GET", "/api/matches/"),
    ("GET", "/api/bots/"),
    ("GET", "/api/ladders/"),
    ("GET", "/api/accounts/me/"),
    ("POST", "/api/matches/"),
    ("GET", "/"),
    ("GET", "/matches/"),
    ("GET", "/ladders/1/"),
]
TOKEN = "0" * 40  # any token: looking it up needs the database
LIMITED_ROLE = "limited"


def every_url() -> list[str]:
    """Every route of the API and the site (the resolver's), with made-up ids, and the admin."""
    fill = {"uuid": str(uuid.uuid4()), "int": "1", "slug": "bots", "str": "x", "path": "x"}
    urls = ["/admin/", "/admin/tournaments/match/", "/admin/login/"]
    for _, pattern in _routes(get_resolver().url_patterns):
        url = "/" + pattern.lstrip("^").rstrip("$")
        for kind, value in fill.items():
            while f"<{kind}:" in url:
                start = url.index(f"<{kind}:")
                url = url[:start] + value + url[url.index(">", start) + 1 :]
        if "<" not in url and "(" not in url and "\\" not in url:
            urls.append(url)
    return urls


def ask(base: str, method: str, path: str, token: str = "") -> tuple[int, dict[str, str], bytes]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    body = b"{}" if method == "POST" else None
    request = urllib.request.Request(f"{base}{path}", data=body, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status), dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def assert_unavailable(status: int, headers: dict[str, str], body: bytes, path: str) -> None:
    assert status == 503, (path, status, body[:300])
    assert headers.get("Retry-After") == str(RETRY_AFTER_SECONDS), (path, headers)
    if path.startswith("/api/"):
        assert headers["Content-Type"].startswith("application/json"), (path, headers)
        assert "unavailable" in json.loads(body)["detail"], (path, body)
    else:
        assert headers["Content-Type"].startswith("text/html"), (path, headers)
        assert b"unavailable" in body, (path, body[:300])


@pytest.fixture(scope="module")
def limited_role(own_postgres: OwnPostgres) -> str:
    """A role that may open no connection (not a superuser: the limit binds it): each of its
    connections is refused with "too many connections for role"."""
    with psycopg.connect(own_postgres.url("postgres"), autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {LIMITED_ROLE} LOGIN CONNECTION LIMIT 0")
    return LIMITED_ROLE


def web(stack: Stack, database_url: str) -> tuple[Proc, str]:
    port = free_port()
    proc = stack.web(platform_env(DATABASE_URL=database_url), port)
    return proc, f"http://127.0.0.1:{port}"


class Poller:
    """Asks one door over and over from a thread, keeping each status, while the test acts."""

    def __init__(self, base: str, path: str) -> None:
        self.base, self.path = base, path
        self.seen: list[int] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stop.is_set():
            status, headers, body = ask(self.base, "GET", self.path)
            if status == 503:
                assert_unavailable(status, headers, body, self.path)
            self.seen.append(status)
            self.stop.wait(0.05)

    def __enter__(self) -> Poller:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop.set()
        self.thread.join(60)


@pytest.fixture
def postgres_back(own_postgres: OwnPostgres) -> Iterator[OwnPostgres]:
    """The module's cluster, started again after the test whatever happened."""
    yield own_postgres
    own_postgres.stop()
    own_postgres.start()


def test_every_door_answers_503_while_postgres_is_down_and_serves_once_it_is_back(
    postgres_back: OwnPostgres, stack: Stack
) -> None:
    proc, base = web(stack, postgres_back.url("backroom"))
    assert ask(base, "GET", "/api/matches/")[0] == 200
    with Poller(base, "/api/matches/") as api, Poller(base, "/matches/") as page:
        wait_until(lambda: 200 in api.seen and 200 in page.seen, 30, "answers", proc)
        postgres_back.stop()  # a fast shutdown: connections in use are cut (admin shutdown)
        for method, path in DATABASE_DOORS:
            assert_unavailable(*ask(base, method, path, token=TOKEN), path)
        answers = {path: ask(base, "GET", path) for path in every_url()}
        postgres_back.start()
        seen = len(api.seen)
        wait_until(
            lambda: 200 in api.seen[seen:] and 200 in page.seen[seen:], 60, "200s again", proc
        )
    for path, (status, headers, body) in answers.items():
        assert status != 500, (path, body[:300])
        if status == 503:
            assert_unavailable(status, headers, body, path)
    # While Postgres stopped and started, each answer was a 200 or a clean 503, never a 500.
    for poller in (api, page):
        assert set(poller.seen) == {200, 503}, poller.seen
    assert "Internal Server Error" not in proc.log


def test_too_many_connections_is_a_503(
    own_postgres: OwnPostgres, limited_role: str, stack: Stack
) -> None:
    url = own_postgres.url("backroom").replace("postgres@", f"{limited_role}@")
    _, base = web(stack, url)
    for method, path in DATABASE_DOORS:
        assert_unavailable(*ask(base, method, path, token=TOKEN), path)
