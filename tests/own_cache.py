"""Forget this run's cache entries (throttle counters) and nobody else's.

Redis's own ``clear()`` is FLUSHDB: the whole Redis database, which every xdist worker of a run,
every suite running at the same time on this machine (and a `make up` platform) share. One
worker's clear would then wipe another's keys between two of its requests (a writer's
read-your-writes mark, a throttle counter). Each worker has its own key prefix
(TEST_CACHE_PREFIX plus the worker's name), so only keys under it are deleted, and the suite's
cache backend (RunOwnRedisCache, config/settings/test.py) makes ``cache.clear()`` do the same.
"""

from __future__ import annotations

from django.conf import settings
from redis import Redis

from config.cache import KeptClientRedisCache


def clear() -> None:
    """Delete every cache key under this run's KEY_PREFIX."""
    config = settings.CACHES["default"]
    prefix = config["KEY_PREFIX"]
    assert prefix, "a test run needs its own cache key prefix"
    client = Redis.from_url(config["LOCATION"])
    try:
        keys = list(client.scan_iter(match=f"{prefix}:*", count=5000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


class RunOwnRedisCache(KeptClientRedisCache):
    """The platform's Redis cache whose ``clear()`` forgets this worker's keys only."""

    def clear(self) -> None:
        clear()
