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
