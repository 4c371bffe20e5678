"""Answers the fuzzer found breaking the schema, each checked on its own (tests/api/test_fuzz.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from tests.api.conformance import violations
from tests.api.conftest import Enqueued, throttle_rates
from tests.factories import BotFactory, BotVersionFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_a_new_challenge_conforms(api: APIClient, enqueued: Enqueued) -> None:
    # Its seed and options are hidden (null) until the match is over.
    r = api.post(
        "/api/matches/",
        {"game": "brexit", "seats": [{"builtin": "random"}] * 3},
        format="json",
    )
    assert r.status_code == 201, r.content
    assert r.json()["seed"] is None and r.json()["options"] is None
    assert violations("/api/matches/", "post", r) is None


def test_an_account_without_email_conforms(
    client_for: Callable[[Any], APIClient],
) -> None:
    r = client_for(UserFactory(email="")).get("/api/accounts/me/")
    assert r.json()["email"] == ""
    assert violations("/api/accounts/me/", "get", r) is None


def test_a_version_without_smoke_match_conforms(api: APIClient, user: Any) -> None:
    version = BotVersionFactory(bot__owner=user)
    r = api.get(f"/api/bots/{version.bot_id}/versions/{version.number}/")
    assert r.json()["smoke_match"] is None
    assert violations("/api/bots/{bot_id}/versions/{number}/", "get", r) is None


@pytest.mark.parametrize(
    ("path", "url", "method", "status"),
    [
        ("/api/bots/{id}/", "/api/bots/999999/", "get", 404),
        ("/api/bots/{id}/", "/api/bots/999999/", "delete", 401),
        ("/api/bots/{bot_id}/versions/", "/api/bots/999999/versions/", "get", 404),
        # Not even a number where the route wants one: still the API's JSON 404.
        ("/api/bots/{bot_id}/versions/", "/api/bots/-1/versions/", "get", 404),
        ("/api/matches/{match_id}/", "/api/matches/not-a-uuid/", "get", 404),
        ("/api/matches/", "/api/matches/?offset=99999999999", "get", 400),
        ("/api/accounts/me/", "/api/accounts/me/", "get", 401),
    ],
)
def test_errors_are_documented(
    anon: APIClient, path: str, url: str, method: str, status: int
) -> None:
    r = getattr(anon, method)(url)
    assert r.status_code == status
    assert r["Content-Type"] == "application/json"
    assert "detail" in r.json() or status == 400
    assert violations(path, method, r) is None


@override_settings(DEBUG=True)
@pytest.mark.parametrize("url", ["/api/bots/-1/versions/", "/api/ladders/%0A/", "/api/x%0Ay/"])
def test_an_unrouted_api_url_is_json_with_debug_too(anon: APIClient, url: str) -> None:
    r = anon.get(url)
    assert r.status_code == 404 and r["Content-Type"] == "application/json"


def test_an_unrouted_api_write_is_the_same_json_404_not_a_csrf_page() -> None:
    from django.test import Client

    c = Client(enforce_csrf_checks=True)
    user: Any = UserFactory()
    c.force_login(user)
    r = c.patch("/api/bots/not-a-number/versions/", {}, content_type="application/json")
    assert r.status_code == 404 and r["Content-Type"] == "application/json"


def test_a_wrong_token_is_a_documented_401(anon: APIClient) -> None:
    anon.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    r = anon.get("/api/ladders/")
    assert r.status_code == 401
    assert violations("/api/ladders/", "get", r) is None


def test_a_throttled_challenge_is_a_documented_429(api: APIClient, enqueued: Enqueued) -> None:
    with throttle_rates(challenges="1/hour"):
        body = {"game": "brexit", "seats": [{"builtin": "random"}] * 3}
        assert api.post("/api/matches/", body, format="json").status_code == 201
        r = api.post("/api/matches/", body, format="json")
    assert r.status_code == 429 and int(r["Retry-After"]) > 0
    assert violations("/api/matches/", "post", r) is None


def test_a_bot_of_another_user_is_a_documented_404(api: APIClient) -> None:
    bot = BotFactory(is_public=True)
    r = api.patch(f"/api/bots/{bot.pk}/", {"name": "mine"}, format="json")
    assert r.status_code == 404
    assert violations("/api/bots/{id}/", "patch", r) is None
