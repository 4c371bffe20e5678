"""The token cache (tournaments/site/api/token_cache.py): a token that worked a moment ago is
answered without its lookup, and every change that can stop a token working (a revocation, DRF's
token deleted, an account deactivated or its password changed, an account deleted) takes effect
on the very next request. These tests commit (``transaction=True``): the writes' own commits
retire the entries.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.factories import UserFactory
from tournaments.play import services
from tournaments.site.api import token_cache

pytestmark = pytest.mark.django_db(transaction=True)

WHO = "/api/accounts/me/"
"""A read that needs the caller."""


@pytest.fixture(autouse=True)
def _cached() -> Iterator[None]:
    with override_settings(TOKEN_CACHE_SECONDS=60.0):
        yield


def client_with(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def token_queries(client: APIClient) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(WHO).status_code == 200
    return [q["sql"] for q in queries if "authtoken_token" in q["sql"] or "_apitoken" in q["sql"]]


def drf_key(user: Any) -> str:
    token, _ = Token.objects.get_or_create(user=user)
    return str(token.key)


@pytest.mark.parametrize("kind", ["drf", "named"])
def test_a_token_is_looked_up_once(kind: str) -> None:
    user = UserFactory()
    key = drf_key(user) if kind == "drf" else services.create_token(user=user, name="ci")[1]
    client = client_with(key)
    first = token_queries(client)
    again = token_queries(client)
    assert first
    assert again == []


@pytest.mark.parametrize(
    "flags", [{}, {"is_staff": True}, {"is_superuser": True, "is_staff": True}]
)
def test_the_account_from_the_cache_is_the_accounts_own(flags: dict[str, bool]) -> None:
    """Each column in its place (``from_db`` reads values in the model's column order): a cached
    caller is never given another column's value (a name read as a superuser flag)."""
    user = UserFactory(username="ordinary-name", **flags)
    key = drf_key(user)
    assert client_with(key).get(WHO).status_code == 200
    _, cached = token_cache.cached_user(key)
    assert cached is not None
    for name in token_cache.KEPT:
        assert getattr(cached, name) == getattr(user, name), name
    assert cached.email == user.email  # a column not kept: read from Postgres when asked
    assert client_with(key).get(WHO).json()["username"] == "ordinary-name"


def test_the_cache_holds_no_key_and_no_password() -> None:
    user = UserFactory()
    key = drf_key(user)
    client_with(key).get(WHO)
    entry = cache.get(token_cache.key_for(key))
    assert entry is not None
    assert key not in repr(entry) and str(user.password) not in repr(entry)
    assert key not in token_cache.key_for(key)


def test_a_revoked_named_token_is_refused_on_the_very_next_request() -> None:
    user = UserFactory()
    token, key = services.create_token(user=user, name="laptop")
    client = client_with(key)
    assert client.get(WHO).status_code == 200
    assert client.get(WHO).status_code == 200
    assert services.revoke_token(user=user, token_id=token.pk)
    assert client.get(WHO).status_code == 401


def test_a_deleted_drf_token_is_refused_on_the_very_next_request() -> None:
    user = UserFactory()
    client = client_with(drf_key(user))
    assert client.get(WHO).status_code == 200
    Token.objects.filter(user=user).delete()
    assert client.get(WHO).status_code == 401


def test_a_deactivated_account_is_refused_on_the_very_next_request() -> None:
    user = UserFactory()
    client = client_with(drf_key(user))
    assert client.get(WHO).status_code == 200
    user.is_active = False
    user.save(update_fields=["is_active"])
    assert client.get(WHO).status_code == 401


def test_a_password_change_retires_the_entry_and_a_login_does_not() -> None:
    user = UserFactory()
    key = drf_key(user)
    client = client_with(key)
    assert client.get(WHO).status_code == 200
    user.save(update_fields=["last_login"])
    assert cache.get(token_cache.key_for(key))[0] == cache.get(token_cache.GENERATION)
    user.set_password("a-new-long-password-1")
    user.save(update_fields=["password"])
    assert cache.get(token_cache.key_for(key))[0] != cache.get(token_cache.GENERATION)


def test_a_deleted_account_is_refused_on_the_very_next_request() -> None:
    user = UserFactory()
    client = client_with(drf_key(user))
    assert client.get(WHO).status_code == 200
    user.delete()
    assert client.get(WHO).status_code == 401


def test_with_the_cache_off_nothing_is_kept() -> None:
    user = UserFactory()
    key = drf_key(user)
    with override_settings(TOKEN_CACHE_SECONDS=0):
        assert client_with(key).get(WHO).status_code == 200
    assert cache.get(token_cache.key_for(key)) is None
