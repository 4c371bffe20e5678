"""Which requests the replica serves, and read-your-writes for the client that wrote.

The replica (config/replica.py) serves the site's and the API's read-only requests: GET and
HEAD of the pages, the viewer, the lists, events and downloads. Never the admin (staff read what
they are about to change), never a POST, PUT, PATCH or DELETE (every query of a request that
writes goes to the primary), and not a client that wrote a moment ago: after such a request
that wrote to the database (a sign-up, a login, a challenge, an upload, a logout; whatever its
answer), that client's reads stay on the primary for ``REPLICA_READ_YOUR_WRITES_SECONDS``,
longer than the lag the replica may have while it serves.

What wrote is what the router saw (``Reads.wrote``: ``db_for_write``, which the ORM asks before
every insert, update, delete and ``select_for_update``), not the status. A request that wrote
nothing has nothing to read back, whatever it answered: a refused one (a 400, a 403, a 429...),
and as much a form that failed and was shown again with a 200 (a wrong password at the login).
Counting those would let a client keep itself, or the holder of any token it sends, on the
primary with a stream of cheap failed POSTs. No request path writes the primary behind the
router's back: the event store's raw ``COPY`` (a person's move, a fork) runs after its match's
row was locked or created through the ORM, in the same request; writes to Redis (the rate
limits' counts) are not the replica's to lag. The client is known by a signed cookie (a
browser, or any client keeping cookies) and by its ``Authorization`` header (an API token: the
CLI keeps no cookies), remembered in the cache.

With no replica configured this middleware does nothing at all.
"""

from __future__ import annotations

import hashlib
import logging
import math
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.core.signals import request_finished
from django.http import HttpRequest, HttpResponseBase

from config import replica
from tournaments.play.read_cache import CACHE_DOWN

log = logging.getLogger(__name__)

COOKIE = "backroom_wrote"
SALT = "tournaments.site.replica_reads"
READS = frozenset({"GET", "HEAD"})
PRIMARY_PATHS = ("/admin/",)
"""Paths whose reads are the primary's whatever the method (config/urls.py mounts the admin)."""


def _writer_key(authorization: str) -> str:
    return "replica:wrote:" + hashlib.sha256(authorization.encode()).hexdigest()


def wrote_lately(request: HttpRequest) -> bool:
    """Whether this client wrote within the read-your-writes window."""
    window = settings.REPLICA_READ_YOUR_WRITES_SECONDS
    if request.get_signed_cookie(COOKIE, default=None, salt=SALT, max_age=window) is not None:
        return True
    authorization = request.headers.get("Authorization")
    if not authorization:
        return False
    try:
        return cache.get(_writer_key(authorization)) is not None
    except CACHE_DOWN as exc:
        log.warning("cache away, reading from the primary: %s", exc)
        return True  # unknown: the primary is never stale


def remember_writer(request: HttpRequest, response: HttpResponseBase) -> None:
    window = settings.REPLICA_READ_YOUR_WRITES_SECONDS
    response.set_signed_cookie(
        COOKIE,
        "1",
        salt=SALT,
        max_age=math.ceil(window),
        httponly=True,
        samesite="Lax",
        secure=settings.SESSION_COOKIE_SECURE,
    )
    authorization = request.headers.get("Authorization")
    if authorization:
        try:
            cache.set(_writer_key(authorization), 1, timeout=math.ceil(window))
        except CACHE_DOWN as exc:
            log.warning("cache away, a token's next reads may come from the replica: %s", exc)


def replica_may_serve(request: HttpRequest) -> bool:
    if request.method not in READS or request.path_info.startswith(PRIMARY_PATHS):
        return False
    if wrote_lately(request):
        return False
    return replica.state().serves_reads


class ReplicaReads:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if not replica.configured():
            return self.get_response(request)
        reads = replica.begin(replica.Reads(replica=replica_may_serve(request)))
        response = self.get_response(request)
        # Whether it wrote, not how it answered (the module's docstring): a wrong login
        # re-rendered with a 200 wrote nothing.
        if request.method not in READS and reads.wrote:
            remember_writer(request, response)
        return response


def _end(**kwargs: object) -> None:
    replica.end()


# At the response's close, after a streamed body too (its queries ran under this request's reads).
request_finished.connect(_end, dispatch_uid="tournaments.site.replica_reads.end")
