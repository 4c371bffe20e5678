"""The one check every query string passes before any view reads it: the API's lists, the site's
pages, the admin, downloads.

Three things no parameter of any route may hold, name or value:

* a NUL character: Postgres refuses it in any text it is compared with, so a filter such as
  ``/api/bots/?game=%00`` was a 500;
* bytes that are not UTF-8 (``%ED%A0%80``, a lone surrogate; ``%FF``): Django reads them as
  U+FFFD and the view answers for a value nobody sent;
* more than ``MAX_LENGTH`` characters: no id, filter, step or token here comes near it.

Each is a 400 that names the parameter and the reason: JSON (``{"detail": ...}``) under
``/api/``, the site's 400 page elsewhere. Being a middleware, no list or page added later can
miss it (tests/api/test_query_params.py enumerates the routes).
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import parse_qsl

from django.http import HttpRequest, HttpResponse, JsonResponse

from tournaments.site.pages.errors import BadQuery, bad_request

MAX_LENGTH = 1000
"""Characters a query parameter's name or value may have."""


def problem(raw: bytes) -> str | None:
    """What makes the query string ``raw`` unreadable, or None if every parameter is sound."""
    try:
        # Strict both ways: raw bytes and %-escapes must each decode as UTF-8 (which refuses
        # encoded surrogates), where Django would quietly put U+FFFD in their place.
        pairs = parse_qsl(raw.decode("utf-8"), keep_blank_values=True, errors="strict")
    except UnicodeDecodeError:
        return "the query string is not UTF-8 (a broken byte sequence or a lone surrogate)"
    for name, value in pairs:
        shown = _shown(name)
        if "\x00" in name:
            return "a parameter name holds a NUL character, which no parameter may"
        if len(name) > MAX_LENGTH:
            return f"a parameter name is longer than {MAX_LENGTH} characters"
        if "\x00" in value:
            return f"{shown} holds a NUL character, which no parameter may"
        if len(value) > MAX_LENGTH:
            return f"{shown} is longer than {MAX_LENGTH} characters"
    return None


def _shown(name: str) -> str:
    return repr(name) if len(name) <= 40 else repr(name[:40] + "...")


def _raw_query(request: HttpRequest) -> bytes:
    # As Django reads it (django.core.handlers.wsgi.get_bytes_from_wsgi): the WSGI and ASGI
    # handlers both keep the query string as ISO-8859-1 text of its bytes.
    return str(request.META.get("QUERY_STRING", "")).encode("iso-8859-1", errors="replace")


class QueryParamCheck:
    """Refuses a request whose query string ``problem`` finds unreadable, before any view, and
    answers a page's own BadQuery: both a 400 with its message, logged as one line, never with a
    traceback (a fuzzer's thousands of bad queries must not flood the log with them)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        found = problem(_raw_query(request))
        if found is None:
            return self.get_response(request)
        if request.path.startswith("/api/"):
            return JsonResponse({"detail": found}, status=400)
        return bad_request(request, BadQuery(found))

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, BadQuery):
            return bad_request(request, exception)
        return None  # everything else is Django's
