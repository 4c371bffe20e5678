"""Django's Redis cache, with one Redis client per connection pool instead of one per call.

Django's ``RedisCacheClient.get_client`` builds a new ``redis.Redis`` for every cache call, and
redis-py (5+) fills each new client's table of response callbacks, about 170 commands put one
by one into a case-insensitive dict: 0.1-0.2 ms of CPU per call, several calls per request (the
page cache, the token cache, the throttles, the settled reads), a quarter of a cached read's
whole CPU (docs/scaling.md, Web cost). A client holds no connection of its own (the pool does,
and hands one out per command) and is safe to share between threads, so each pool's is made
once and kept. Everything else is Django's backend as it is.
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class KeptClientRedisCacheClient(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        # Django's own attributes, which its stubs leave out.
        pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
        client = self._clients.get(id(pool))  # the pools are kept for the backend's life
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)  # type: ignore[attr-defined]
        return client


class KeptClientRedisCache(RedisCache):
    """``CACHES``' backend (config/settings/base.py)."""

    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = KeptClientRedisCacheClient
