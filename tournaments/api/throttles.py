"""Rate limits on the expensive writes: challenges (a match on the workers), uploads, and sign-ups.

The rate is looked up when a request arrives, not when the class is defined, so
settings overrides (and tests) take effect; DRF answers 429 with Retry-After.
"""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import UserRateThrottle


class _WriteThrottle(UserRateThrottle):
    """Counts only POSTs: reading the same endpoint must not eat the write budget."""

    methods = frozenset({"POST"})
    """What it counts (the schema documents 429 for these alone: tournaments/api/schema.py)."""

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
        return super().allow_request(request, view)


class ChallengeThrottle(_WriteThrottle):
    scope = "challenges"


class UploadThrottle(_WriteThrottle):
    scope = "uploads"


class SignupThrottle(_WriteThrottle):
    """Per client address, since whoever signs up has no account yet."""

    scope = "signups"
