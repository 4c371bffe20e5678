"""The API's replay reads of a match that is over, served as stored bytes (Redis).

A match's state at a step (``/api/matches/<id>/state/``) and its pages of events
(``/api/matches/<id>/events/``) are drawn from its events, which never change; once the match and
its duplicate deal are over (``visibility.deal_over``, which stays true) every view is open and the
answer to one URL is the same bytes for every caller *who has nothing to do with the match*:
anonymous, or an account that is not staff, did not create it, owns no bot seated in it and sits
in none of its seats (``visibility``: only those see more, an abort's reason, their bots' verdict
details, a private bot's name). Rendering it (the visibility query, DRF, the serializer) still cost
8-11 ms of web CPU a read whose answer came from the replay cache (docs/scaling.md, Web cost).

So a 200 of such a read, rendered for such a caller, is kept ``settings.SETTLED_READS_SECONDS``
(600 by default; 0 turns this off) under its URL (scheme, host, path, query string, ``Accept``)
and served to the next such caller before sessions, authentication or DRF run. Who asks is
checked on every request, before an entry is read:

* The caller is known without a query or not served: anonymous (no ``Authorization``, no session
  cookie), or a token the token cache knows (``api.token_cache``, whose entries a revocation
  retires at once). A session, another scheme, or a token not cached goes to the views (which
  fill the token cache).
* The match's *header* says who has something to do with it: its creator, its bots' owners, its
  seats' people; and whether it may be shared at all (over with its deal, not a smoke match).
  It is computed once after a rendered read and kept as long as the entries. Staff and the
  match's own people always go to the views.
* Both the header and every entry carry the page cache's *visibility generation*
  (``page_cache.GENERATION``), read in the same round trip: a write that can hide something (a
  bot made private or renamed, a match, seat or bot deleted, an account renamed or deactivated)
  sets a new one once it commits, and everything stored before is a miss from the next request.
  Within ``REPLICA_READ_YOUR_WRITES_SECONDS`` of it (``page_cache.FRESH``) a read the replica
  answered (it may lack that write) is served but neither it nor the header is stored.

Every key names the release (``release``: the replay cache's version and the games' engine
versions), so bytes folded by older rules are never served. When Redis is away the read is rendered
as if nothing were cached, and, as the replay cache does, this process then leaves Redis alone for
``read_cache.AWAY_SECONDS`` (one timeout, not one a read).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any, NamedTuple, cast
from urllib.parse import urlencode

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_vary_headers
from rest_framework.renderers import BaseRenderer
from rest_framework.settings import api_settings

from games.engine.registry import GAMES, get
from tournaments.play import read_cache, selectors, visibility
from tournaments.play.read_cache import CACHE_DOWN
from tournaments.play.selectors import replay
from tournaments.site import page_cache
from tournaments.site.api import token_cache

VERSION = 1
"""Bump when what a stored entry or header holds changes shape."""
REPLAY_READS = re.compile(
    r"/api/matches/(?P<match>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"
    r"/(?P<door>state|events)/\Z"
)
"""The reads kept: the same paths as the API's ``<uuid:match_id>`` routes (lower-case hex), and
nothing past them: matched whole (``fullmatch``, ``\\Z``), since ``$`` also matches before a final
newline and ``/state/%0A``, which no route serves, was answered from the replay cache."""
SAID = page_cache.SAID
"""``X-Page-Cache: hit`` on a response served from here (`bench endpoints` counts it)."""


class Header(NamedTuple):
    """What a read of one match needs to know before an entry is served, kept per match."""

    generation: str | None
    """The visibility generation it was computed under."""
    people: frozenset[int]
    """Who has something to do with the match: its creator, its bots' owners, its people."""
    shared: bool
    """Whether its reads may be shared at all (over with its deal, not a smoke match)."""
    game: str
    status: str
    last_version: int
    last_shown: int
    seats: int
    headers: tuple[tuple[str, str], ...] = ()
    """A rendered read's response headers (the CSP, ``Vary``, framing): a read answered from
    the replay cache carries the same."""
    document: dict[str, Any] | None = None
    """The events' page header (``selectors.document_header``) as anonymous sees it, if shared."""
    sight: visibility.Sight | None = None
    """What anonymous sees of the events, if shared: the replay cache's blocks are kept by it."""


def seconds() -> float:
    return float(getattr(settings, "SETTLED_READS_SECONDS", 600.0))


def release() -> str:
    """What the stored bytes were computed by: the replay cache's version and every game's engine
    version (as the replay cache's own keys name them), so a release that folds or shows the same
    events differently serves none of the old bytes."""
    engines = ",".join(f"{name}={get(name).rules.engine_version}" for name in sorted(GAMES))
    return hashlib.sha256(f"{VERSION}:{read_cache.VERSION}:{engines}".encode()).hexdigest()[:16]


def header_key(match_id: str) -> str:
    return f"settled:{release()}:{match_id}:header"


def entry_key(request: HttpRequest, match_id: str) -> str:
    named = "\n".join(
        [
            request.scheme or "",
            request.META.get("HTTP_HOST", ""),
            request.path_info,
            request.META.get("QUERY_STRING", ""),
            request.META.get("HTTP_ACCEPT", ""),
        ]
    )
    return f"settled:{release()}:{match_id}:{hashlib.sha256(named.encode()).hexdigest()}"


def sent_token(request: HttpRequest) -> str | None:
    """The key of an ``Authorization: Token <key>`` header, as DRF's TokenAuthentication reads
    it; None for anything else."""
    words: list[str] = str(request.META.get("HTTP_AUTHORIZATION", "")).split()
    if len(words) != 2 or words[0].lower() != "token":
        return None
    return words[1]


def header_of(match_id: str, generation: str | None, response: HttpResponse) -> Header | None:
    """Who has something to do with the match and whether its reads may be shared (a query)."""
    match = selectors.find_match(match_id, None)
    if match is None:
        return None
    people = visibility.people_in(match)
    shared = match.validation_of_id is None and visibility.deal_over(match)
    return Header(
        generation=generation,
        people=frozenset(people),
        shared=shared,
        game=match.game,
        status=match.status,
        last_version=match.last_version,
        last_shown=selectors.last_step_shown(match) if shared else 0,
        seats=len(match.seats.all()),
        headers=_shared_headers(response),
        document=selectors.document_header(match, None) if shared else None,
        sight=visibility.sight(None, match, None) if shared else None,
    )


def _shared_headers(response: HttpResponse) -> tuple[tuple[str, str], ...]:
    """A rendered read's headers as every caller is to get them: ``Vary`` names the cookie
    (a session's read is rendered for its user) whether or not this caller's read touched it."""
    like = HttpResponse(
        headers={
            name: value
            for name, value in response.headers.items()
            if name.lower() not in ("content-length", SAID.lower())
        }
    )
    patch_vary_headers(like, ["Cookie"])
    return tuple(like.headers.items())


def unrelated(user: Any, header: Header) -> bool:
    """Whether ``user`` sees the match as anonymous does."""
    uid = visibility.user_id(user)
    return not visibility.is_staff(user) and (uid is None or uid not in header.people)


class SettledReads:
    """The middleware (see the module's docstring). It sits where the page cache does: before
    sessions, authentication and CSRF, after the body and query-string checks."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        found = REPLAY_READS.fullmatch(request.path_info)
        if request.method != "GET" or found is None or seconds() <= 0:
            return self.get_response(request)
        if settings.SESSION_COOKIE_NAME in request.COOKIES:
            return self.get_response(request)
        if not read_cache.usable():
            return self.get_response(
                request
            )  # Redis failed a moment ago: one timeout, not one a read
        match_id = found["match"]
        token = sent_token(request)
        if token is None and "HTTP_AUTHORIZATION" in request.META:
            return self.get_response(request)
        names = [page_cache.GENERATION, header_key(match_id), entry_key(request, match_id)]
        if token is not None:
            names += [token_cache.GENERATION, token_cache.key_for(token)]
        names.append(page_cache.FRESH)
        kept = read_cache.read_many(names, f"settled reads, rendering {request.path}")
        if kept is None:
            return self.get_response(request)
        generation = kept.get(page_cache.GENERATION)
        header = kept.get(names[1])
        if header is not None and header.generation != generation:
            header = None
        if header is not None and self._may_serve(kept, names, token, header):
            entry = kept.get(names[2])
            if entry is not None and entry[0] == generation:
                _, status, headers, content = entry
                return HttpResponse(content, status=status, headers={**headers, SAID: "hit"})
            draw = state_from_replay_cache if found["door"] == "state" else events_from_replay_cache
            drawn = draw(request, match_id, header)
            if drawn is not None:
                return drawn
        response = self.get_response(request)
        if page_cache.storable(response) and page_cache.keepable(kept):
            self._keep(request, match_id, generation, header, response)
        return response

    @staticmethod
    def _may_serve(kept: dict[str, Any], names: list[str], token: str | None, header: Any) -> bool:
        if not header.shared:
            return False
        if token is None:
            return True
        entry = kept.get(names[4])
        if entry is None or entry[0] != kept.get(token_cache.GENERATION):
            return False  # the views authenticate it (and keep it for the next read)
        uid, is_staff = entry[1][0], entry[1][3]
        return not is_staff and uid not in header.people

    def _keep(
        self,
        request: HttpRequest,
        match_id: str,
        generation: str | None,
        header: Header | None,
        response: HttpResponse,
    ) -> None:
        """Keep a rendered read if every caller like this one would get the same bytes."""
        if header is None:
            header = header_of(match_id, generation, response)
            if header is None:
                return
            # A match still playing is shared once it is over: asked again within seconds.
            self._set(header_key(match_id), header, request, None if header.shared else 2.0)
        # DRF sets the user it authenticated on the request it wraps: this one.
        if not header.shared or not unrelated(getattr(request, "user", None), header):
            return
        headers = dict(response.headers.items())
        response[SAID] = "miss"
        self._set(
            entry_key(request, match_id),
            (generation, response.status_code, headers, response.content),
            request,
        )

    @staticmethod
    def _set(key: str, value: Any, request: HttpRequest, timeout: float | None = None) -> None:
        try:
            cache.set(key, value, seconds() if timeout is None else timeout)
        except CACHE_DOWN as exc:
            read_cache.failed(f"settled reads, not keeping {request.path}", exc)


STEP = re.compile(r"[0-9]{1,9}\Z")
JSON_ASKED = frozenset({"", "*/*", "application/json"})
"""What an ``Accept`` asking for the JSON renderer reads like (anything else goes to DRF's
negotiation: the browsable page, a version parameter, a refusal)."""


def state_from_replay_cache(
    request: HttpRequest, match_id: str, header: Header
) -> HttpResponse | None:
    """The state read answered as ``MatchStateView`` answers it, from the replay cache's
    observation or else the whole-match fold's kept state (``replay.kept_observation``), or None
    (the views answer) for anything but a plain, valid read whose observation or state is
    already kept: a step and view within the match's, no other parameter."""
    if not _plain_query(request, {"step", "view"}):
        return None
    asked = request.GET
    text = asked.get("step")
    if text is not None and (not STEP.fullmatch(text) or int(text) > header.last_version):
        return None
    step = header.last_shown if text is None else min(int(text), header.last_shown)
    try:
        view = visibility.parse_view(asked.get("view"), header.seats)
    except visibility.BadView:
        return None
    keyed = read_cache.Keyed(match_id, header.game)
    try:
        state = cache.get(read_cache.state_key(keyed, step, view))
    except CACHE_DOWN:
        return None
    if state is None:
        # A step not read before, of a pass the whole-match fold keeps (its blocks hold every
        # state; the views' observations are kept only once read).
        state = replay.kept_observation(keyed, step, view)
    if state is None:
        return None
    body = {
        "match": match_id,
        "status": header.status,
        "step": step,
        "last_version": header.last_version,
        "view": view.name,
        "state": state,
    }
    return _drawn(body, header)


def _drawn(body: dict[str, Any], header: Header) -> HttpResponse:
    content = _renderer().render(body, "application/json", {})
    headers = {**dict(header.headers), "Content-Length": str(len(content)), SAID: "drawn"}
    return HttpResponse(content, status=200, headers=headers)


def _plain_query(request: HttpRequest, names: set[str]) -> bool:
    if request.META.get("HTTP_ACCEPT", "").strip() not in JSON_ASKED:
        return False
    asked = request.GET
    return set(asked) <= names and all(len(asked.getlist(k)) == 1 for k in asked)


def events_from_replay_cache(
    request: HttpRequest, match_id: str, header: Header
) -> HttpResponse | None:
    """A page of events answered as ``MatchEventsView`` answers anonymous, from the replay
    cache's blocks, or None (the views answer) for anything but a plain, valid read (``after``
    and ``limit`` within bounds, no ``seat``) whose blocks are all kept."""
    if (
        header.document is None
        or header.sight is None
        or not _plain_query(request, {"after", "limit"})
    ):
        return None
    texts = {name: request.GET.get(name) for name in ("after", "limit")}
    if any(text is not None and not STEP.fullmatch(text) for text in texts.values()):
        return None
    after = int(texts["after"] or 0)
    limit = selectors.EVENTS_PAGE_SIZE if texts["limit"] is None else int(texts["limit"])
    if not 1 <= limit <= selectors.EVENTS_PAGE_MAX:
        return None
    match = read_cache.Keyed(match_id, header.game)
    # As selectors._events_page cuts a page from the blocks it spans.
    last = min(after + limit + 1, header.last_version)
    events: list[dict[str, Any]] = []
    if last > after:
        blocks = range(after // selectors.EVENTS_BLOCK, (last - 1) // selectors.EVENTS_BLOCK + 1)
        keys = [read_cache.events_key(match, header.sight, block) for block in blocks]
        try:
            found = cache.get_many(keys)
        except CACHE_DOWN:
            return None
        if len(found) != len(keys):
            return None
        events = [e for key in keys for e in found[key] if after < e["version"] <= last]
    page = dict(header.document)
    page["events"] = events[:limit]
    page["view"] = {"seats": [], "game_over": header.status in visibility.OVER, "deal_over": True}
    page["next"] = None
    if len(events) > limit:
        params = {**request.GET.dict(), "after": page["events"][-1]["version"]}
        page["next"] = request.build_absolute_uri(f"{request.path}?{urlencode(params)}")
    return _drawn(page, header)


def _renderer() -> BaseRenderer:
    """The API's JSON renderer (settings.REST_FRAMEWORK's first), with its options."""
    # The stubs type the setting as written (dotted paths); DRF hands back the imported classes.
    classes = cast("list[type[BaseRenderer]]", api_settings.DEFAULT_RENDERER_CLASSES)
    return classes[0]()
