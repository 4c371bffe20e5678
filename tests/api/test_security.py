"""Security settings as a visitor meets them: CSP, CSRF on session writes, passwords, quiet logs."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from rest_framework.test import APIClient

from tests.factories import UserFactory
from tests.viewer.conftest import play

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def test_every_response_carries_the_content_security_policy(client: Client) -> None:
    for url in ["/", "/matches/", "/api/ladders/", "/accounts/login/", "/api/docs/"]:
        policy = client.get(url).headers.get("Content-Security-Policy", "")
        directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
        assert directives["script-src"] == "'self'", url
        assert directives["style-src"] == "'self'", url
        assert directives["object-src"] == "'none'" and directives["frame-ancestors"] == "'none'"


INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", re.I)
INLINE_STYLE = re.compile(r"<style\b|\sstyle=|\son[a-z]+=", re.I)


def test_the_sites_pages_need_no_inline_script_or_style(client: Client) -> None:
    # The policy forbids them, so a page that had one would silently lose it in a browser.
    match = play("brexit", 3, None)
    urls = ["/", "/matches/", f"/matches/{match.pk}/", "/accounts/login/", "/api/docs/"]
    for url in urls:
        html = client.get(url).content.decode()
        assert not INLINE_SCRIPT.search(html), url
        assert not INLINE_STYLE.search(html), (url, INLINE_STYLE.search(html))


def test_session_authenticated_writes_need_the_csrf_token() -> None:
    user: Any = UserFactory()
    api = APIClient(enforce_csrf_checks=True)
    api.force_login(user)
    body = {"name": "csrf-bot", "game": "brexit"}
    refused = api.post("/api/bots/", body, format="json")
    assert refused.status_code == 403 and "CSRF" in refused.json()["detail"]
    # The token a page of the site would carry makes the same write pass.
    api.get("/")  # the log-out form on every page carries it
    token = api.cookies[settings.CSRF_COOKIE_NAME].value
    assert api.post("/api/bots/", body, format="json", HTTP_X_CSRFTOKEN=token).status_code == 201


def test_token_authenticated_writes_need_no_csrf_token() -> None:
    # A token is not sent by a browser on its own: no cross-site request can carry it.
    user = UserFactory()
    api = APIClient(enforce_csrf_checks=True)
    token = api.post(
        "/api/accounts/token/", {"username": user.username, "password": "pass-word-123"}
    ).json()["token"]
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert api.post("/api/bots/", {"name": "t", "game": "brexit"}, format="json").status_code == 201


@pytest.mark.parametrize(
    ("password", "says"),
    [("short1", "too short"), ("password123", "too common"), ("83920174652", "entirely numeric")],
)
def test_weak_passwords_are_refused_at_sign_up(password: str, says: str) -> None:
    response = APIClient().post("/api/accounts/", {"username": "weak", "password": password})
    assert response.status_code == 400
    assert any(says in message for message in response.json()["password"])


def test_no_password_or_token_reaches_the_logs(caplog: pytest.LogCaptureFixture) -> None:
    password = "a-long-pass-phrase-7319"
    api = APIClient()
    with caplog.at_level(logging.DEBUG):
        created = api.post("/api/accounts/", {"username": "quiet", "password": password})
        token = created.json()["token"]
        again = api.post("/api/accounts/token/", {"username": "quiet", "password": password})
        assert again.json()["token"] == token
        # Failures are logged (a 4xx warning): their bodies must not be.
        api.post("/api/accounts/token/", {"username": "quiet", "password": password + "x"})
        api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        api.get("/api/accounts/me/")
        api.credentials(HTTP_AUTHORIZATION=f"Token {token[:-1]}0")
        api.get("/api/accounts/me/")
        site = Client()
        site.post("/accounts/login/", {"username": "quiet", "password": password})
        site.post("/accounts/login/", {"username": "quiet", "password": password + "x"})
    logged = caplog.text + "".join(str(r.args) for r in caplog.records)
    assert caplog.records, "nothing was logged: the test would prove nothing"
    for secret in (password, token, token[:-1]):
        assert secret not in logged


def test_production_sends_cookies_over_https_only_and_asks_for_hsts() -> None:
    code = (
        "import json; from django.conf import settings as s;"
        "print(json.dumps([s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SESSION_COOKIE_HTTPONLY,"
        " s.SECURE_HSTS_SECONDS, s.SECURE_SSL_REDIRECT, s.DEBUG, s.MIDDLEWARE]))"
    )
    env = {k: v for k, v in os.environ.items() if k not in {"DJANGO_SETTINGS_MODULE", "DEBUG"}}
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT,
        env={
            **env,
            "DJANGO_SETTINGS_MODULE": "config.settings.production",
            "SECRET_KEY": "a-long-random-production-secret-value-0123456789",
            "ALLOWED_HOSTS": "backroom.example",
        },
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    secure, csrf_secure, http_only, hsts, redirect, debug, middleware = json.loads(
        result.stdout.splitlines()[-1]
    )
    assert secure and csrf_secure and http_only and redirect and not debug
    assert hsts >= 365 * 24 * 3600
    assert "csp.middleware.CSPMiddleware" in middleware
