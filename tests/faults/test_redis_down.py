"""Redis stopped: the rate limits fail open with a warning instead of failing every write."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from tests.api.conftest import throttle_rates
from tests.factories import UserFactory
from tests.faults.services import OwnRedis
from tournaments import tasks
from tournaments.play.models import Match

pytestmark = [pytest.mark.faults, pytest.mark.django_db]

THREE_BUILTINS = {"game": "brexit", "seats": [{"builtin": "random"}] * 3}


@pytest.fixture
def api_on_own_redis(own_redis: OwnRedis, monkeypatch: pytest.MonkeyPatch) -> Iterator[APIClient]:
    """A signed-in client of an API whose cache is the test's own Redis; sends are recorded."""
    monkeypatch.setattr(tasks.play_match, "delay", lambda match_id: None)
    cache = {
        "BACKEND": "config.cache.KeptClientRedisCache",
        "LOCATION": own_redis.url,
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
    }
    with override_settings(CACHES={"default": cache}):
        from rest_framework.authtoken.models import Token

        client = APIClient()
        token = Token.objects.create(user=UserFactory())
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        yield client


def test_throttled_writes_go_through_with_a_warning_while_redis_is_down(
    api_on_own_redis: APIClient, own_redis: OwnRedis, caplog: Any
) -> None:
    with throttle_rates(challenges="1/hour"):
        assert (
            api_on_own_redis.post("/api/matches/", THREE_BUILTINS, format="json").status_code == 201
        )
        # Redis up: the limit holds (so this test would see a limit that never applied).
        assert (
            api_on_own_redis.post("/api/matches/", THREE_BUILTINS, format="json").status_code == 429
        )
        own_redis.stop()
        with caplog.at_level(logging.WARNING, logger="tournaments.site.api.throttles"):
            down = [
                api_on_own_redis.post("/api/matches/", THREE_BUILTINS, format="json")
                for _ in range(3)
            ]
        assert [r.status_code for r in down] == [201, 201, 201]
        assert "cache is unavailable" in caplog.text
        # Reads never touched the limits.
        assert api_on_own_redis.get("/api/matches/").status_code == 200
        own_redis.start()  # back (empty): counting starts again
        assert (
            api_on_own_redis.post("/api/matches/", THREE_BUILTINS, format="json").status_code == 201
        )
        assert (
            api_on_own_redis.post("/api/matches/", THREE_BUILTINS, format="json").status_code == 429
        )
    assert Match.objects.count() == 5
