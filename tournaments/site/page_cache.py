"""The busiest anonymous reads, kept for a couple of seconds in the cache (Redis).

Home, the site's match list, a ladder's page and the API's match list are what visitors read
most, and rendering them (Django's ORM, the template or the serializer) costs several times
what serving stored bytes does (docs/scaling.md, Web cost). A response to an anonymous GET of
one of them is kept ``settings.PAGE_CACHE_SECONDS`` (2 s by default; 0 turns this off) and
served whole to the next anonymous GET of the same URL, before sessions, authentication,
CSRF or messages are looked at.

Three rules keep it honest:

* **Anonymous only.** A request with a session cookie, or a messages cookie (a site page), or
  an ``Authorization`` header (the API) is never served from here nor stored: what a logged-in
  user sees (their private bots, their smoke matches, their challenge button) is never in a
  shared entry. Anything the stack answers with a cookie, a
  status other than 200 or a ``Cache-Control`` of its own is not stored either.
* **Nothing that became hidden is served.** Every entry is stored with the *visibility
  generation* it was rendered under, and a write that can hide something (a bot made private,
  renamed, deactivated or given away; a bot, version, match or seat deleted; an account renamed
  or deactivated: a change of what the pages show, not any save) sets a new generation once it
  commits (``hidden_changed``, connected to the models' signals by the app, tournaments/apps.py):
  an entry of an older generation is a miss. The generation is read in the same
  round trip as the entry. A page rendered from rows read before such a commit is stored under
  the generation read before it, so it is never served after the bump. A page rendered *after*
  the bump from a replica (config/replica.py) may still lack the write, for as long as the
  replica may lag: while ``FRESH`` is there (``REPLICA_READ_YOUR_WRITES_SECONDS`` from the bump)
  such a page is served but not stored; one read from the primary is stored as ever.
* **Live pages go stale by ``PAGE_CACHE_SECONDS`` at most**: the entry's own expiry in Redis.
  A status, a result, a new match or a seed that opens (a deal once over stays over,
  ``visibility.deal_over``) shows after that long.

When Redis is away the page is rendered as if nothing were cached (``read_cache``'s rule: slower,
never unavailable); a generation that could not be set is logged, and the entries it should
have retired expire within ``PAGE_CACHE_SECONDS``.
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
import secrets
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, NamedTuple

from django.conf import settings
from django.contrib.messages.storage.cookie import CookieStorage
from django.core.cache import cache
from django.db import transaction
from django.http import HttpRequest, HttpResponse

from config import replica
from tournaments.play.read_cache import CACHE_DOWN

log = logging.getLogger(__name__)

VERSION = 2
"""Bump when what a stored entry holds changes shape.
2: an entry holds what its list listed (``Listed``), for ``token_lists``."""
GENERATION = "pages:generation"
"""The key of the current visibility generation (a random token; absent until the first bump)."""
FRESH = "pages:generation:fresh"
"""Present for ``REPLICA_READ_YOUR_WRITES_SECONDS`` after a new generation: the window in which a
replica may not have the write that set it yet, so nothing read from a replica is stored."""

# Paths end at ``\Z`` (``$`` matches before a final newline, ``/matches/%0A``) and ids are ASCII
# digits (``\d`` takes any script's): the doors are exactly the URL resolver's routes.
SITE_PAGES = re.compile(r"/(?:matches/|ladders/[0-9]{1,18}/)?\Z")
"""Home, the match list and a ladder's page (its standings and latest matches)."""
API_LISTS = re.compile(r"/api/matches/\Z")
"""The API's match list."""
API_SHARED = re.compile(r"/api/ladders/[0-9]{1,18}/ratings/\Z")
"""A ladder's ratings (the API's), kept as the match list is."""
VIEWER = re.compile(r"/matches/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/\Z")
"""A match's viewer page: kept only when its view says so (``KEEP``: a finished match's)."""
KEEP = "page_cache_keep"
"""A response attribute: seconds to keep it instead of ``seconds()`` (0: not at all). The viewer
page of a finished match never goes stale: only a fork or a hiding write (a new generation)
changes it, so it is kept as the settled reads are."""
LISTED = "page_cache_listed"
"""A response attribute: what a list listed (``Listed``), stored with the entry."""


class Listed(NamedTuple):
    """What a list response shows that an API caller's own answer could differ by: who sees more
    of its rows than anonymous, and from when a smoke match (its owner's only) would be among
    them. ``token_lists`` serves the entry to a token whose account is none of these."""

    people: frozenset[int]
    """The listed matches' creators, bots' owners and people; the listed private bots' owners."""
    smoke_since: datetime | None
    """A smoke match of the caller's created at or after this would be listed (the oldest row
    listed when older pages follow; None: the list reaches back to the first match)."""
    smoke_listed: bool
    """Whether the response lists a smoke match (only its owner's and staff's lists do)."""
    matches: bool = True
    """Whether the rows are matches (a ratings list lists no smoke match at all)."""
    game: str | None = None
    """The one game the list is filtered to, if any: a smoke match of another game's bot is
    never among its rows."""


API_AUTHENTICATION = (
    "tournaments.site.api.authentication.NamedTokenAuthentication",
    "rest_framework.authentication.SessionAuthentication",
)
"""How the API knows its callers (settings.REST_FRAMEWORK): an ``Authorization`` header or the
session cookie, which ``entry_key`` looks for. A test holds the settings to this list."""

SAID = "X-Page-Cache"
"""The response header saying whether an anonymous read was served from here (``hit``) or
rendered and stored (``miss``); absent when the page is not cached (`bench endpoints` counts it)."""

KEPT_HEADERS = frozenset({"cache-control", "set-cookie"})
"""A response with one of these was not meant to be shared: it is not stored."""


def seconds() -> float:
    return float(getattr(settings, "PAGE_CACHE_SECONDS", 2.0))


def entry_key(request: HttpRequest) -> str | None:
    """The entry ``request`` would be served from, or None if it must reach the views.

    The key names everything the response depends on for an anonymous caller: scheme, host (the
    API writes absolute ``next`` links), path and query string as sent, and for the API the
    ``Accept`` header (JSON or the browsable page).
    """
    if request.method != "GET" or seconds() <= 0:
        return None
    path = request.path_info
    cookies = request.COOKIES
    if settings.SESSION_COOKIE_NAME in cookies:
        return None
    if SITE_PAGES.fullmatch(path) or VIEWER.fullmatch(path):
        # The message cookie holds notes for this visitor alone ("Logged out", ...).
        if CookieStorage.cookie_name in cookies:
            return None
        accept = ""
    elif API_LISTS.fullmatch(path) or API_SHARED.fullmatch(path):
        if "HTTP_AUTHORIZATION" in request.META:
            return None
        accept = request.META.get("HTTP_ACCEPT", "")
    else:
        return None
    return named_key(request, accept)


def named_key(request: HttpRequest, accept: str) -> str:
    """The entry of this URL for an anonymous caller sending ``accept``."""
    named = "\n".join(
        [
            request.scheme or "",
            request.META.get("HTTP_HOST", ""),
            request.path_info,
            request.META.get("QUERY_STRING", ""),
            accept,
        ]
    )
    return f"pages:{VERSION}:{hashlib.sha256(named.encode()).hexdigest()}"


def keepable(found: Mapping[str, Any]) -> bool:
    """Whether what this request rendered may be stored, given the keys read before it
    (``found``, holding ``FRESH`` if it was there): not if the replica served any of it within
    the window after a new generation."""
    return FRESH not in found or not replica.served_by_replica()


def storable(response: HttpResponse) -> bool:
    return (
        response.status_code == 200
        and not response.streaming
        and not response.cookies
        and not any(header.lower() in KEPT_HEADERS for header in response.headers)
    )


class AnonymousPageCache:
    """The middleware: serve or store a whole response (see the module's docstring).

    It sits before the session, authentication, CSRF and messages middleware, so a served entry
    costs none of them, and after the security and query-string checks, which every response
    passes, stored or not. What the middleware inside it adds (the CSP, framing and ``Vary``
    headers) is stored with the response.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        key = entry_key(request)
        if key is None:
            return self.get_response(request)
        found: dict[str, Any] = {}
        try:
            found = cache.get_many([GENERATION, FRESH, key])
        except CACHE_DOWN as exc:
            log.warning("page cache unavailable, rendering %s: %s", request.path, exc)
            return self.get_response(request)
        generation = found.get(GENERATION)
        entry = found.get(key)
        if entry is not None and entry[0] == generation:
            return served(entry)
        response = self.get_response(request)
        keep(request, key, generation, response, found)
        return response


def served(entry: tuple[Any, ...]) -> HttpResponse:
    """A stored entry as the response it keeps."""
    _, status, headers, content, _listed = entry
    return HttpResponse(content, status=status, headers={**headers, SAID: "hit"})


def keep(
    request: HttpRequest,
    key: str,
    generation: str | None,
    response: HttpResponse,
    found: Mapping[str, Any],
    headers: dict[str, str] | None = None,
) -> None:
    """Store ``response`` under ``key`` (if it may be: ``storable``, ``keepable`` given the keys
    read before it, ``KEEP``), marked a miss."""
    # A viewer page is kept only when its view says for how long (a live match's: not at all).
    default = 0.0 if VIEWER.fullmatch(request.path_info) else seconds()
    timeout = float(getattr(response, KEEP, default))
    if timeout <= 0 or not storable(response) or not keepable(found):
        return
    headers = dict(response.headers.items()) if headers is None else headers
    response[SAID] = "miss"
    entry = (generation, response.status_code, headers, response.content, listed(response))
    try:
        cache.set(key, entry, timeout)
    except CACHE_DOWN as exc:
        log.warning("page cache unavailable, not keeping %s: %s", request.path, exc)


def listed(response: HttpResponse) -> Listed | None:
    found = getattr(response, LISTED, None)
    return found if isinstance(found, Listed) else None


def bump() -> None:
    """A new visibility generation: every entry stored before is a miss from now on. ``FRESH``
    is set first, so that no request reads the new generation without it."""
    window = math.ceil(float(getattr(settings, "REPLICA_READ_YOUR_WRITES_SECONDS", 0)))
    try:
        if window > 0:
            cache.set(FRESH, 1, window)
        cache.set(GENERATION, secrets.token_hex(8), None)
    except CACHE_DOWN as exc:
        log.warning("page cache: no new generation (entries expire in %s s): %s", seconds(), exc)


def hidden_changed(**_: Any) -> None:
    """Once the write commits (at once outside a transaction): a new generation."""
    transaction.on_commit(bump, robust=True)


BOT_SHOWN = frozenset({"name", "is_public", "is_active", "owner_id", "game"})
"""What of a bot the cached pages show or filter on: its name, whether it is named at all
(``is_public``), whether it is listed (``is_active``: the match list's bot filter), whose it is
and its game. Its description, webhook and chosen version are on no cached page."""


def changes_shown(bot: Any, changes: Mapping[str, Any]) -> bool:
    """Whether writing ``changes`` (a bot write's validated fields) to ``bot`` would change one of
    its ``BOT_SHOWN`` columns, and so retire every entry: what the ``visibility`` rate limit
    counts, on the API and on the site alike (tournaments/site/api/throttles.py)."""
    return any(name in BOT_SHOWN and value != getattr(bot, name) for name, value in changes.items())


ACCOUNT_SHOWN = frozenset({"username", "is_active"})
"""What of an account a page shows or depends on: a login (last_login), a new password or a
profile edit does not change a page."""


def forked(instance: Any, created: bool = False, **_: Any) -> None:
    """A match saved: if it is a new fork, a new generation (the original's viewer page, kept for
    as long as the settled reads, ``KEEP``, lists its forks). Connected in tournaments/apps.py."""
    if created and instance.forked_from_id is not None:
        hidden_changed()
