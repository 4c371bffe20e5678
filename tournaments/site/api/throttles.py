"""Rate limits on what is worth abusing: challenges and forks (a match on the workers), uploads,
sign-ups, password guesses (API tokens, the site's login, a password change's old password), and
the writes that retire a whole cache (a bot's name or visibility: every cached page; a token
revoked or a password changed: every cached token lookup).

The rate is looked up when a request arrives, not when the class is defined, so settings
overrides (and tests) take effect; DRF answers 429 with Retry-After.

Two kinds of budget:

* writes (challenges, uploads, sign-ups) are charged only for what was accepted: a request
  refused with a 400 creates nothing and must not use up the budget. The throttle checks on
  the way in and the view (``ChargedOnSuccess``) charges on the way out, after a 2xx. Two
  requests racing past the check may both be charged: the limit is exceeded by at most the
  requests in flight at once.
* logins count every attempt, right or wrong: guessing is what they limit.

The site's forms use the same budgets (``write_allowed``): a door on the site is counted with
the API's door to the same write, per account or address whichever is used. The site alone
revokes tokens and changes passwords (``TokenChangeThrottle``); there, and on the admin's own
password form, a wrong old password is charged to the account (``PasswordGuessThrottle``), so a
session cannot be used to guess the password it does not know.

Anonymous callers are told apart by address. ``X-Forwarded-For`` is believed only as far as
``REST_FRAMEWORK["NUM_PROXIES"]`` (settings: ``NUM_PROXIES``, default 0, i.e. not at all), so
a client cannot invent a fresh address for each request.

The counts live in the cache (Redis). When Redis is down the limits fail open: the
request goes through and a warning is logged, because refusing every write while the
cache is away would turn a Redis outage into an outage of the API, and everything a
limit protects (the workers, the database) is still protected by the queues and the
per-bot and per-match limits (docs/reliability.md).
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponse
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle, UserRateThrottle

from tournaments.play.origins import origin_of
from tournaments.play.read_cache import CACHE_DOWN

log = logging.getLogger(__name__)

PENDING = "_backroom_pending_charges"
"""Attribute of the request: the throttles to charge if the response is a success."""


class _LiveRate(SimpleRateThrottle):
    """Reads its rate per request (settings may change after the class is made)."""

    methods = frozenset({"POST"})
    """What it counts (the schema documents 429 for these alone: tournaments/site/api/schema.py)."""

    def get_rate(self) -> str | None:
        rates: dict[str, Any] = api_settings.DEFAULT_THROTTLE_RATES
        rate = rates.get(str(self.scope))
        return None if rate is None else str(rate)

    def _refresh(self) -> None:
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)


def _fail_open(scope: str | None, exc: Exception) -> bool:
    log.warning("rate limit %r not applied, the cache is unavailable: %s", scope, exc)
    return True


class _WriteThrottle(_LiveRate, UserRateThrottle):
    """Checks on the way in; the view charges it only if it accepted the request."""

    def allow_request(self, request: Request, view: Any) -> bool:
        if request.method not in self.methods:
            return True
        if not isinstance(view, ChargedOnSuccess):
            raise ImproperlyConfigured(f"{type(view).__name__} must be ChargedOnSuccess")
        if not self.has_room(request, view):
            return False
        getattr(request, PENDING).append(self)
        return True

    def _keyed(self, request: Any, view: Any) -> bool:
        """Read the rate and the caller's key; False when nothing limits it (no rate, no key)."""
        self._refresh()
        if self.num_requests is None or self.duration is None:
            return False
        self.key = self.get_cache_key(request, view)
        return self.key is not None

    def has_room(self, request: Any, view: Any) -> bool:
        """Whether the budget has room for one more (nothing charged: ``charge`` does that)."""
        if not self._keyed(request, view):
            return True
        assert self.num_requests is not None and self.duration is not None  # _keyed read them
        try:
            self.history = self.cache.get(self.key, [])
        except CACHE_DOWN as exc:
            return _fail_open(self.scope, exc)
        self.now = self.timer()
        while self.history and self.history[-1] <= self.now - self.duration:
            self.history.pop()
        if len(self.history) >= self.num_requests:
            return bool(self.throttle_failure())
        return True

    def charge(self) -> None:
        # Re-read: other accepted requests may have been charged since the check.
        duration = self.duration or 0
        try:
            history = [t for t in self.cache.get(self.key, []) if t > self.timer() - duration]
            self.cache.set(self.key, [self.timer(), *history], duration)
        except CACHE_DOWN as exc:
            _fail_open(self.scope, exc)


class ChallengeThrottle(_WriteThrottle):
    """Challenges and forks: each is a match for the workers to play."""

    scope = "challenges"


class VisibilityThrottle(_WriteThrottle):
    """A bot's changes that retire every cached page and replay read (its name, visibility or
    state: ``page_cache.BOT_SHOWN``), per account: so that one account cannot keep every visitor's
    caches empty by changing its bots over and over. Only a request that would change one of them
    is counted (the view says which, ``changes_visibility``), and only once accepted."""

    scope = "visibility"
    methods = frozenset({"PUT", "PATCH", "DELETE", "POST"})

    def allow_request(self, request: Request, view: Any) -> bool:
        if request.method not in self.methods or not view.changes_visibility(request):
            return True
        return super().allow_request(request, view)


class TokenChangeThrottle(_WriteThrottle):
    """The site's writes that retire every cached token lookup (``token_cache``): a named token
    revoked, the password changed; per account, so that one account cannot keep every script's
    lookups on Postgres by revoking over and over. Making a token retires nothing and is not
    counted (an account holds at most ``tokens.MAX_TOKENS``: making more needs revocations)."""

    scope = "tokens"


class PasswordGuessThrottle(_WriteThrottle):
    """Wrong current passwords given to a password change (the site's form and the admin's), per
    account: whoever holds a session (a borrowed laptop, a stolen cookie) could otherwise guess
    the password through the form, unlimited, and then change it. Only a wrong (or missing) old
    password is charged, once the form said so (``guessed_wrong``); past the budget the form is
    refused before the old password is checked, right or wrong, and nothing changes."""

    scope = "password_guesses"


def password_guess_allowed(request: HttpRequest) -> PasswordGuessThrottle | None:
    """None if this password change may check its old password, else the throttle that refused
    (``guessed_wrong`` charges a wrong one to the same account)."""
    throttle = PasswordGuessThrottle()
    return None if throttle.has_room(request, None) else throttle


def guessed_wrong(request: HttpRequest) -> None:
    """A password change's old password was wrong: one more on the account's budget."""
    throttle = PasswordGuessThrottle()
    if throttle._keyed(request, None):
        throttle.charge()


class UploadThrottle(_WriteThrottle):
    scope = "uploads"


class SignupThrottle(_WriteThrottle):
    """Per client address (an IPv6 address's /64: tournaments/play/origins.py), since whoever
    signs up has no account yet."""

    scope = "signups"

    def get_ident(self, request: Any) -> str:
        return origin_of(super().get_ident(request))


class LoginThrottle(_LiveRate):
    """Per client address (an IPv6 address's /64): token requests and the site's login form
    share one budget."""

    scope = "logins"

    def get_ident(self, request: Any) -> str:
        return origin_of(super().get_ident(request))

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}

    def allow_request(self, request: Any, view: Any) -> bool:
        if request.method not in self.methods:
            return True
        self._refresh()
        try:
            return bool(super().allow_request(request, view))
        except CACHE_DOWN as exc:
            return _fail_open(self.scope, exc)


class ChargedOnSuccess:
    """A DRF view whose write throttles are charged only when it answers 2xx."""

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        setattr(request, PENDING, [])
        super().initial(request, *args, **kwargs)  # type: ignore[misc]

    def finalize_response(
        self, request: Request, response: Response, *args: Any, **kwargs: Any
    ) -> Response:
        if 200 <= response.status_code < 300:
            for throttle in getattr(request, PENDING, []):
                throttle.charge()
        return super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc,no-any-return]


def too_many(throttle: SimpleRateThrottle) -> HttpResponse:
    """The site's 429 (DRF makes the API's): a line of text and when to come back."""
    wait = max(1, round(throttle.wait() or 1))
    response = HttpResponse(
        f"Too many attempts: try again in {wait} seconds.\n",
        status=429,
        content_type="text/plain; charset=utf-8",
    )
    response["Retry-After"] = str(wait)
    return response


def login_allowed(request: HttpRequest) -> SimpleRateThrottle | None:
    """None if this login attempt may go ahead (and is counted), else the throttle that refused."""
    throttle = LoginThrottle()
    return None if throttle.allow_request(request, None) else throttle


class _SiteForm(ChargedOnSuccess):
    """What a write throttle is told the view is when a site form asks (not a DRF view)."""

    def changes_visibility(self, request: HttpRequest) -> bool:
        """A site form asks ``VisibilityThrottle`` only once it found that its write would
        change what the pages show (``page_cache.changes_shown``)."""
        return True


def write_allowed(throttle: _WriteThrottle, request: HttpRequest) -> bool:
    """A site form's write (a sign-up, an upload, a bot's visibility, a token revoked) on the
    API's own budget, the same counter: checked now, charged by ``charge_accepted`` once the
    form's write is accepted, as the API charges after a 2xx."""
    setattr(request, PENDING, [])
    return throttle.allow_request(request, _SiteForm())  # type: ignore[arg-type]  # reads META and user alone


def charge_accepted(request: HttpRequest) -> None:
    for throttle in getattr(request, PENDING, []):
        throttle.charge()
