"""Rate limits on the expensive writes: challenges (a match on the workers), uploads, and sign-ups.

The rate is looked up when a request arrives, not when the class is defined, so
settings overrides (and tests) take effect; DRF answers 429 with Retry-After.

The counts live in the cache (Redis). When Redis is down the limits fail open: the
request goes through and a warning is logged, because refusing every write while the
cache is away would turn a Redis outage into an outage of the API, and everything a
limit protects (the workers, the database) is still protected by the queues and the
per-bot and per-match limits (docs/reliability.md).
"""

from __future__ import annotations

import logging
from typing import Any

from redis.exceptions import RedisError
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import UserRateThrottle

log = logging.getLogger(__name__)


class _WriteThrottle(UserRateThrottle):
    """Counts only POSTs: reading the same endpoint must not eat the write budget."""

    def get_rate(self) -> str | None:
        rates: dict[str, Any] = api_settings.DEFAULT_THROTTLE_RATES
        rate = rates.get(str(self.scope))
        return None if rate is None else str(rate)

    def allow_request(self, request: Request, view: Any) -> bool:
        if request.method != "POST":
            return True
        # The rate may have changed since __init__ (settings are read per request).
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        try:
            return super().allow_request(request, view)
        except (RedisError, OSError) as exc:
            log.warning("rate limit %r not applied, the cache is unavailable: %s", self.scope, exc)
            return True


class ChallengeThrottle(_WriteThrottle):
    scope = "challenges"


class UploadThrottle(_WriteThrottle):
    scope = "uploads"


class SignupThrottle(_WriteThrottle):
    """Per client address, since whoever signs up has no account yet."""

    scope = "signups"
