"""A token's read of the API's match list or a ladder's ratings, served the anonymous entry.

Scripts read the API with their token, so the page cache (``page_cache``: anonymous only) never
served them, and a match list rendered for a token cost about 10 ms of web CPU (docs/scaling.md,
Web cost). Yet for most callers the answer is anonymous's, byte for byte: a list shows its caller
more than anonymous only of a match the caller created, plays in or owns a bot of (an abort's
reason, a private bot's name, their seats' logs), of a ladder rating of their own private bot, or
by listing their own smoke matches, which only their owner (and staff) sees.

So a ``GET`` of either list with ``Authorization: Token <key>`` (and no session cookie) is served
the anonymous entry of the same URL (``page_cache.named_key``) when all of these hold, checked
before sessions, authentication or DRF run:

* the token is one the token cache knows (``api.token_cache``: a revocation retires it at once),
  its account active and not staff;
* the account is none of the entry's ``Listed.people`` (who sees more of a listed row);
* no smoke match of the account's bots would be listed: its newest one of the list's game (of
  any game when the list is not filtered to one; a query, then kept in Redis per account and
  game under the visibility generation, and dropped when a new one is made) is older than the
  oldest row listed, and older pages follow;
* the account has not just written (read-your-writes): any write it made in the last
  ``2 * PAGE_CACHE_SECONDS`` (its new challenge may be missing from an entry rendered just before).

Otherwise the views answer it. A rendered answer whose caller fits the first three rules (no
smoke match among its rows) is the anonymous answer, so it is stored as the anonymous entry too:
a token caller fills the cache as an anonymous one does. Every entry still carries the page
cache's visibility generation and expires after ``PAGE_CACHE_SECONDS``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_vary_headers

from tournaments.play import read_cache, selectors, visibility
from tournaments.play.read_cache import CACHE_DOWN
from tournaments.site import page_cache
from tournaments.site.api import token_cache

if TYPE_CHECKING:
    from tournaments.play.models import Match

log = logging.getLogger(__name__)

VERSION = 2
"""Bump when what a marker holds changes shape.
2: an account's newest smoke match per game."""
SAFE = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
SMOKE_SECONDS = 600.0
"""How long an account's newest smoke match is kept (a new one drops it at once)."""
_STAFF, _ACTIVE, _ID = (token_cache.KEPT.index(n) for n in ("is_staff", "is_active", "id"))


def wrote_key(uid: int) -> str:
    return f"lists:{VERSION}:wrote:{uid}"


def smoke_key(uid: int) -> str:
    return f"lists:{VERSION}:smoke:{uid}"


def wrote_seconds() -> float:
    """An entry rendered just before a write commits lives ``PAGE_CACHE_SECONDS`` from its store."""
    return 2 * page_cache.seconds() + 1


def sent_token(request: HttpRequest) -> str | None:
    """The key of an ``Authorization: Token <key>`` header (as DRF reads it), else None."""
    words: list[str] = str(request.META.get("HTTP_AUTHORIZATION", "")).split()
    if len(words) != 2 or words[0].lower() != "token":
        return None
    return words[1]


JSON_ASKED = frozenset({"", "*/*", "application/json"})
"""An ``Accept`` that DRF answers with JSON. The browsable API's page names its caller, so it is
never shared (nor is a ``format`` parameter's choice)."""


def json_asked(request: HttpRequest) -> bool:
    return request.META.get("HTTP_ACCEPT", "").strip() in JSON_ASKED and "format" not in request.GET


def matches_listed(
    matches: Iterable[Match], older_pages: bool, game: str | None = None
) -> page_cache.Listed:
    """What a page of the match list (its seats prefetched, filtered to ``game`` if given)
    shows its callers apart."""
    rows = list(matches)
    people: set[int] = set()
    for match in rows:
        people |= visibility.people_in(match)
    since = min((m.created_at for m in rows), default=None) if older_pages else None
    smoke = any(m.validation_of_id is not None for m in rows)
    return page_cache.Listed(frozenset(people), since, smoke, game=game)


def ratings_listed(owners: Iterable[int]) -> page_cache.Listed:
    """A page of ratings: only the owners of its bots may see more of it (their private bots)."""
    return page_cache.Listed(frozenset(owners), None, False, matches=False)


class TokenLists:
    """The middleware (see the module's docstring). It sits after the page cache, before
    sessions and authentication; every write passing through marks its account as having
    just written."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method not in SAFE:
            response = self.get_response(request)
            _wrote(request, response)
            return response
        token = sent_token(request)
        path = request.path_info
        if (
            request.method != "GET"
            or token is None
            or page_cache.seconds() <= 0
            or token_cache.seconds() <= 0
            or not (page_cache.API_LISTS.fullmatch(path) or page_cache.API_SHARED.fullmatch(path))
            or settings.SESSION_COOKIE_NAME in request.COOKIES
            or not json_asked(request)
            or not read_cache.usable()
        ):
            return self.get_response(request)
        key = page_cache.named_key(request, request.META.get("HTTP_ACCEPT", ""))
        names = [
            page_cache.GENERATION,
            key,
            token_cache.GENERATION,
            token_cache.key_for(token),
            page_cache.FRESH,
        ]
        found = read_cache.read_many(names, f"token lists, rendering {request.path}")
        if found is None:
            return self.get_response(request)
        generation = found.get(page_cache.GENERATION)
        entry = found.get(key)
        account = found.get(names[3])
        uid: int | None = None
        if account is not None and account[0] == found.get(token_cache.GENERATION):
            kept = account[1]
            uid = kept[_ID] if kept[_ACTIVE] and not kept[_STAFF] else None
        if (
            uid is not None
            and entry is not None
            and entry[0] == generation
            and _shared_with(uid, entry[4], generation)
        ):
            return page_cache.served(entry)
        response = self.get_response(request)
        _keep_if_anonymous(request, key, generation, response, found)
        return response


def _shared_with(uid: int, listed: Any, generation: str | None) -> bool:
    """Whether account ``uid`` (active, not staff) would be answered the entry's bytes."""
    if not isinstance(listed, page_cache.Listed) or listed.smoke_listed or uid in listed.people:
        return False
    found = read_cache.read_many(
        [wrote_key(uid), smoke_key(uid)], "token lists, reading an account's markers"
    )
    if found is None:
        return False
    if wrote_key(uid) in found:
        return False
    if not listed.matches:
        return True
    marker = found.get(smoke_key(uid))
    if marker is None or marker[0] != generation:
        marker = (generation, selectors.newest_smoke_matches_of(uid))
        try:
            cache.set(smoke_key(uid), marker, SMOKE_SECONDS)
        except CACHE_DOWN as exc:
            read_cache.failed("token lists, keeping an account's newest smoke match", exc)
    by_game: dict[str, datetime] = marker[1]
    # A list of one game lists no smoke match of another game's bot.
    newest = by_game.get(listed.game) if listed.game else max(by_game.values(), default=None)
    return newest is None or (listed.smoke_since is not None and newest < listed.smoke_since)


def _keep_if_anonymous(
    request: HttpRequest,
    key: str,
    generation: str | None,
    response: HttpResponse,
    found: dict[str, Any],
) -> None:
    """Store a rendered list as the anonymous entry when its caller saw what anonymous sees."""
    listed = page_cache.listed(response)
    user = getattr(request, "user", None)  # DRF sets the user it authenticated on this request
    if listed is None or user is None or not user.is_authenticated or user.is_staff:
        return
    if listed.smoke_listed or user.pk in listed.people:
        return
    if not response.get("Content-Type", "").startswith("application/json"):
        return  # only JSON is the same bytes for every caller
    # As anonymous is answered: its read looked at the session, so its ``Vary`` names the cookie.
    like = HttpResponse(headers=dict(response.headers.items()))
    patch_vary_headers(like, ["Cookie"])
    page_cache.keep(request, key, generation, response, found, dict(like.headers.items()))


def _wrote(request: HttpRequest, response: HttpResponse) -> None:
    """Mark the account of a write that went through: its next lists are its own for a while."""
    if response.status_code >= 400 or page_cache.seconds() <= 0:
        return
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return
    try:
        cache.set(wrote_key(user.pk), 1, wrote_seconds())
        cache.delete(smoke_key(user.pk))
    except CACHE_DOWN as exc:
        read_cache.failed("token lists, marking a write", exc)


def smoke_made(instance: Any, created: bool = False, **_: Any) -> None:
    """A new smoke match (made by the upload's validation, later than the upload): its owner's
    newest is asked again once it commits. Connected to a match's save in tournaments/apps.py."""
    if not created or instance.validation_of_id is None or instance.created_by_id is None:
        return
    owner = instance.created_by_id

    def drop() -> None:
        try:
            cache.delete(smoke_key(owner))
        except CACHE_DOWN as exc:
            log.warning("token lists: an account's smoke marker not dropped: %s", exc)

    transaction.on_commit(drop, robust=True)
