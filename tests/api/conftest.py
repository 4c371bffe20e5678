"""API test fixtures: clients per user, a clean throttle cache, and a record of enqueued tasks."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests import own_cache
from tests.factories import UserFactory
from tournaments import tasks


@pytest.fixture(autouse=True)
def _clean_throttles() -> Iterator[None]:
    # Throttle counters live in the real Redis; test settings use their own key prefix.
    own_cache.clear()
    yield
    own_cache.clear()


@dataclass
class Enqueued:
    play_match: list[str] = field(default_factory=list)
    validate_bot_version: list[int] = field(default_factory=list)


@pytest.fixture
def enqueued(monkeypatch: pytest.MonkeyPatch) -> Enqueued:
    """Tasks sent to the broker are recorded instead (the workers are not what is under test)."""
    record = Enqueued()
    monkeypatch.setattr(tasks.play_match, "delay", record.play_match.append)
    # A match with a person's seat wakes a worker on the people's queue: a match to play too.
    monkeypatch.setattr(tasks.play_person_match, "delay", record.play_match.append)
    monkeypatch.setattr(tasks.validate_bot_version, "delay", record.validate_bot_version.append)
    return record


@pytest.fixture
def anon() -> APIClient:
    return APIClient()


@pytest.fixture
def user(db: None) -> Any:
    return UserFactory()


@pytest.fixture
def other(db: None) -> Any:
    return UserFactory()


@pytest.fixture
def staff(db: None) -> Any:
    return UserFactory(is_staff=True)


@pytest.fixture
def client_for(db: None) -> Callable[[Any], APIClient]:
    """A client logged in with the user's API token."""

    def make(u: Any) -> APIClient:
        from rest_framework.authtoken.models import Token

        c = APIClient()
        token, _ = Token.objects.get_or_create(user=u)
        c.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        return c

    return make


@pytest.fixture
def api(client_for: Callable[[Any], APIClient], user: Any) -> APIClient:
    return client_for(user)


@pytest.fixture
def api_other(client_for: Callable[[Any], APIClient], other: Any) -> APIClient:
    return client_for(other)


@pytest.fixture
def api_staff(client_for: Callable[[Any], APIClient], staff: Any) -> APIClient:
    return client_for(staff)


def throttle_rates(**rates: str) -> Any:
    """override_settings with only the throttle rates changed (the throttles read them per request)."""
    from django.conf import settings
    from django.test import override_settings

    current: dict[str, Any] = settings.REST_FRAMEWORK
    merged = {**current, "DEFAULT_THROTTLE_RATES": {**current["DEFAULT_THROTTLE_RATES"], **rates}}
    return override_settings(REST_FRAMEWORK=merged)
