"""The site's error answers, Django's handler400 and handler500 (platform/config/urls.py): a
400 page that says which query parameter it could not read, and a database outage's 503 with
``Retry-After``, as JSON under ``/api/`` and as a page elsewhere, instead of a 500 page
(docs/reliability.md). What an outage is, play decides (tournaments/play/outages.py): the
runner, the scheduler and the tasks ask it too."""

from __future__ import annotations

import sys

from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.views import defaults

from tournaments.play.outages import is_database_outage


class BadQuery(BadRequest):
    """A query parameter a page cannot read: a 400 whose message the page shows."""


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's handler400. Other 400s (a disallowed host, a broken upload) keep their
    details to the log, as Django's own handler does."""
    message = (
        str(exception) if isinstance(exception, BadQuery) else "The request could not be read."
    )
    return render(request, "site/bad_request.html", {"message": message}, status=400)


RETRY_AFTER_SECONDS = 10
"""What a 503 asks a client to wait: about what Postgres takes to restart."""

API_PREFIX = "/api/"
MESSAGE = "The database is unavailable right now; try again in {seconds} seconds."


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
