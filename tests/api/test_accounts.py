"""Accounts: sign-up returns a working token; token and session authentication both work."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.api.conftest import throttle_rates
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_create_account_returns_a_token_that_authenticates(anon: APIClient) -> None:
    r = anon.post(
        "/api/accounts/",
        {"username": "farage", "password": "a-long-Passphrase-9", "email": "n@example.com"},
        format="json",
    )
    assert r.status_code == 201, r.content
    assert r.data["username"] == "farage"
    assert "password" not in r.data
    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Token {r.data['token']}")
    me = c.get("/api/accounts/me/")
    assert me.status_code == 200
    assert me.data["username"] == "farage"


def test_taken_username_is_a_400_on_username(anon: APIClient, user: Any) -> None:
    r = anon.post(
        "/api/accounts/",
        {"username": user.username.upper(), "password": "a-long-Passphrase-9"},
        format="json",
    )
    assert r.status_code == 400
    assert "taken" in r.data["username"][0]


def test_weak_password_is_a_400_on_password(anon: APIClient) -> None:
    r = anon.post("/api/accounts/", {"username": "x1", "password": "123"}, format="json")
    assert r.status_code == 400
    assert r.data["password"]


def test_token_endpoint_exchanges_credentials(anon: APIClient) -> None:
    u = UserFactory()
    r = anon.post(
        "/api/accounts/token/", {"username": u.username, "password": "pass-word-123"}, format="json"
    )
    assert r.status_code == 200
    again = anon.post(
        "/api/accounts/token/", {"username": u.username, "password": "pass-word-123"}, format="json"
    )
    assert again.data["token"] == r.data["token"]


def test_token_endpoint_refuses_a_wrong_password(anon: APIClient, user: Any) -> None:
    r = anon.post(
        "/api/accounts/token/", {"username": user.username, "password": "nope"}, format="json"
    )
    assert r.status_code == 401
    assert "token" not in r.data


def test_session_authentication_works(user: Any) -> None:
    c = APIClient()
    assert c.login(username=user.username, password="pass-word-123")
    r = c.get("/api/accounts/me/")
    assert r.status_code == 200
    assert r.data["id"] == user.pk


def test_me_needs_authentication(anon: APIClient) -> None:
    assert anon.get("/api/accounts/me/").status_code == 401


def test_sign_ups_are_rate_limited_per_address(anon: APIClient) -> None:
    with throttle_rates(signups="2/hour"):
        for n in range(2):
            r = anon.post(
                "/api/accounts/",
                {"username": f"s{n}", "password": "a-long-pass-phrase-9"},
                format="json",
            )
            assert r.status_code == 201, r.content
        r = anon.post(
            "/api/accounts/", {"username": "s2", "password": "a-long-pass-phrase-9"}, format="json"
        )
    assert r.status_code == 429
    assert int(r["Retry-After"]) > 0
