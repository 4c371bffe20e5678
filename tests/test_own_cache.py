"""Clearing the cache between tests must not wipe the counters of other suites sharing Redis."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.cache import cache
from redis import Redis

from tests import own_cache


def test_clearing_forgets_this_runs_keys_and_keeps_everyone_elses() -> None:
    client = Redis.from_url(settings.CACHES["default"]["LOCATION"])
    theirs = f"another-suite-{uuid.uuid4().hex}:1:throttle_signups_127.0.0.1"
    try:
        client.set(theirs, b"[1.0]", ex=60)
        cache.set("throttle_signups_127.0.0.1", [1.0], 60)
        own_cache.clear()
        assert cache.get("throttle_signups_127.0.0.1") is None
        assert client.get(theirs) == b"[1.0]"
    finally:
        client.delete(theirs)
        client.close()


def test_the_suites_cache_clear_keeps_the_keys_of_the_runs_other_workers() -> None:
    """Redis's clear() is FLUSHDB: a worker's clear wiped a parallel test's write mark."""
    client = Redis.from_url(settings.CACHES["default"]["LOCATION"])
    others = f"{settings.CACHES['default']['KEY_PREFIX']}-gw99:1:replica-writer:abc"
    try:
        client.set(others, b"1", ex=60)
        cache.set("mine", 1, 60)
        cache.clear()
        assert cache.get("mine") is None
        assert client.get(others) == b"1"
    finally:
        client.delete(others)
        client.close()
