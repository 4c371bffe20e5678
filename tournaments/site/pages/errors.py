"""The site's own 400 page: it says which query parameter it could not read."""

from __future__ import annotations

from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


class BadQuery(BadRequest):
    """A query parameter a page cannot read: a 400 whose message the page shows."""


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's handler400. Other 400s (a disallowed host, a broken upload) keep their
    details to the log, as Django's own handler does."""
    message = (
        str(exception) if isinstance(exception, BadQuery) else "The request could not be read."
    )
    return render(request, "site/bad_request.html", {"message": message}, status=400)
