"""Clearing the cache between tests must not wipe the keys of the run's other workers or of other
suites sharing Redis (Redis's own clear() is FLUSHDB: a worker's clear once wiped a parallel
test's write mark)."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest
from django.conf import settings
from django.core.cache import cache
from redis import Redis

from tests import own_cache


def _another_suites() -> str:
    return f"another-suite-{uuid.uuid4().hex}:1:throttle_signups_127.0.0.1"


def _another_workers() -> str:
    return f"{settings.CACHES['default']['KEY_PREFIX']}-gw99:1:replica-writer:abc"


@pytest.mark.parametrize("clear", [own_cache.clear, cache.clear], ids=["own_cache", "cache"])
@pytest.mark.parametrize("theirs", [_another_suites, _another_workers])
def test_clearing_forgets_this_workers_keys_and_keeps_everyone_elses(
    clear: Callable[[], None], theirs: Callable[[], str]
) -> None:
    client = Redis.from_url(settings.CACHES["default"]["LOCATION"])
    key = theirs()
    try:
        client.set(key, b"[1.0]", ex=60)
        cache.set("throttle_signups_127.0.0.1", [1.0], 60)
        clear()
        assert cache.get("throttle_signups_127.0.0.1") is None
        assert client.get(key) == b"[1.0]"
    finally:
        client.delete(key)
        client.close()
