"""The site's answer to a form past a per-account budget that it shares with the API
(tournaments/site/api/throttles.py): the form's own page again, with status 429, ``Retry-After``
and a sentence saying what was refused, why there is a limit, and when to come back. Nothing of
the write was done: the budget is checked before it.
"""

from __future__ import annotations

from django.http import HttpResponse
from rest_framework.throttling import SimpleRateThrottle

VISIBILITY = (
    "Not saved: your account has changed its bots' names, visibility or state as often as it"
    " may ({rate}, on this site and through the API together). Each such change empties every"
    " visitor's cached pages. Try again in {wait}."
)
TOKENS = (
    "Not done: your account has revoked tokens or changed its password as often as it may"
    " ({rate}). Each one empties the API's cache of tokens. Try again in {wait}."
)

GUESSES = (
    "Not changed, and the current password not checked: a wrong current password was given for"
    " your account as often as it may be ({rate}), so that a signed-in session cannot be used to"
    " guess it. Try again in {wait}."
)


def wait_of(throttle: SimpleRateThrottle) -> int:
    """Whole seconds until the budget has room again (at least 1)."""
    return max(1, round(throttle.wait() or 1))


def in_words(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} seconds"
    return f"{-(-seconds // 60)} minutes"  # rounded up: never too early


def message(template: str, throttle: SimpleRateThrottle) -> str:
    return template.format(rate=throttle.rate, wait=in_words(wait_of(throttle)))


def refused(response: HttpResponse, throttle: SimpleRateThrottle) -> HttpResponse:
    """``response`` (the form's page, rendered with ``message``) as the 429 it is."""
    response.status_code = 429
    response["Retry-After"] = str(wait_of(throttle))
    return response
