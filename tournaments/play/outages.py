"""A database outage: how one is told from any other error, and how the web answers it.

Postgres stopped, restarting or failing over, the connection refused or cut, the server out of
connections: none of it is the request's or the match's fault, and none of it lasts. The match
runner and the tasks leave the match to a later try (runner.py, tasks.py); the web answers 503
with ``Retry-After``, as JSON under ``/api/`` and as a page elsewhere, instead of a 500 page
(docs/reliability.md).
"""

from __future__ import annotations

import sys

import django.db
import psycopg
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.views import defaults

DATABASE_OUTAGE: tuple[type[Exception], ...] = (
    psycopg.OperationalError,
    psycopg.InterfaceError,
    django.db.OperationalError,
    django.db.InterfaceError,
)
"""Errors of the database server or the connection to it: connection refused or cut, the
server shutting down (admin shutdown) or starting up, too many connections. Whatever was not
committed is lost, and a later try resumes from what was."""

RETRY_AFTER_SECONDS = 10
"""What a 503 asks a client to wait: about what Postgres takes to restart."""

API_PREFIX = "/api/"
MESSAGE = "The database is unavailable right now; try again in {seconds} seconds."


def is_database_outage(exc: BaseException) -> bool:
    """True if ``exc``, or an exception it was raised from or during, is a database outage.

    A failed flush is often followed by a failed clean-up (the rollback, the end of the
    COPY), so the outage may be the context of the exception that reaches the caller.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, DATABASE_OUTAGE):
            return True
        seen.add(id(current))
        # ``raise ... from None`` says the error replaced the one it was raised during.
        context = None if current.__suppress_context__ else current.__context__
        current = current.__cause__ or context
    return False


def unavailable(request: HttpRequest) -> HttpResponse:
    """The 503 of an outage. The page is rendered without the request: its context processors
    would ask the database who the user is."""
    message = MESSAGE.format(seconds=RETRY_AFTER_SECONDS)
    response: HttpResponse
    if request.path.startswith(API_PREFIX):
        response = JsonResponse({"detail": message}, status=503)
    else:
        html = render_to_string("site/unavailable.html", {"message": message})
        response = HttpResponse(html, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    """Django's handler500, which every uncaught exception reaches, whichever layer raised it
    (a view, DRF's authentication, a middleware saving the session). Django calls it while
    handling the exception, so the exception is the one being handled."""
    exc = sys.exc_info()[1]
    if exc is not None and is_database_outage(exc):
        return unavailable(request)
    return defaults.server_error(request)
