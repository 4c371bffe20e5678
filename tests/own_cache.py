"""Forget this run's cache entries (throttle counters) and nobody else's.

``cache.clear()`` would be FLUSHDB: the whole Redis database, which every suite running at the
same time on this machine (and a `make up` platform) shares. One suite's clear would then wipe
another's throttle counters between two of its requests. Each run has its own key prefix
(TEST_CACHE_PREFIX), so only keys under it are deleted.
"""

from __future__ import annotations

from django.conf import settings
from redis import Redis


def clear() -> None:
    """Delete every cache key under this run's KEY_PREFIX."""
    config = settings.CACHES["default"]
    prefix = config["KEY_PREFIX"]
    assert prefix, "a test run needs its own cache key prefix"
    client = Redis.from_url(config["LOCATION"])
    try:
        keys = list(client.scan_iter(match=f"{prefix}:*", count=500))
        if keys:
            client.delete(*keys)
    finally:
        client.close()
