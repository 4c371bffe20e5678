"""The cache backend (config/cache.py) keeps one Redis client: a new one per call cost a
quarter of a cached read's CPU (redis-py fills every new client's callback table)."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest
import redis
from django.conf import settings
from django.core.cache import cache, caches

from config.cache import KeptClientRedisCache


def test_the_platforms_and_the_suites_cache_are_the_kept_client_backend() -> None:
    assert settings.CACHES["default"]["BACKEND"] in (
        "config.cache.KeptClientRedisCache",
        "tests.own_cache.RunOwnRedisCache",
    )
    assert isinstance(caches["default"], KeptClientRedisCache)


def test_cache_calls_make_no_new_redis_client(monkeypatch: pytest.MonkeyPatch) -> None:
    key = f"kept-client-{uuid.uuid4().hex}"
    cache.get(key)  # the first call makes the client
    made: list[Any] = []
    init = redis.Redis.__init__

    def counted(self: redis.Redis, *args: Any, **kwargs: Any) -> None:
        made.append(self)
        init(self, *args, **kwargs)

    monkeypatch.setattr(redis.Redis, "__init__", counted)
    cache.set(key, {"a": 1}, 30)
    assert cache.get(key) == {"a": 1}
    assert cache.get_many([key, f"{key}-none"]) == {key: {"a": 1}}
    cache.set(f"{key}-n", 1, 30)
    assert cache.incr(f"{key}-n") == 2
    assert cache.add(key, "again", 30) is False
    cache.delete_many([key, f"{key}-n"])
    assert cache.get(key) is None
    assert made == []


def test_threads_share_the_kept_client_and_each_reads_its_own_values() -> None:
    base = f"kept-client-{uuid.uuid4().hex}"
    wrong: list[tuple[int, Any]] = []

    def work(n: int) -> None:
        for i in range(50):
            cache.set(f"{base}-{n}", (n, i), 30)
            got = cache.get(f"{base}-{n}")
            if got != (n, i):
                wrong.append((n, got))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    cache.delete_many([f"{base}-{n}" for n in range(4)])
    assert wrong == []
