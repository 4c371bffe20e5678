"""Addresses a form posts to, and nothing else: a GET there (Back, Forward, a reload, a link
copied from the address bar) goes to the page that holds the form instead of a blank 405.

Any other method is a 405 that says, in words, which page the form is on.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse

View = Callable[..., HttpResponse]


def form_on(page: str, *arguments: str, anchor: str = "") -> Callable[[View], View]:
    """Only POST reaches the view; GET and HEAD redirect to ``page`` (a URL name, reversed
    with the view's own ``arguments``, then ``#anchor``)."""

    def decorate(view: View) -> View:
        @wraps(view)
        def posted(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.method == "POST":
                return view(request, *args, **kwargs)
            url = reverse(page, kwargs={name: kwargs[name] for name in arguments})
            url += f"#{anchor}" if anchor else ""
            if request.method in ("GET", "HEAD"):
                return HttpResponseRedirect(url)
            response = HttpResponse(
                f"{request.method} is not allowed here: this address takes the form on {url}"
                " (POST)\n",
                status=405,
                content_type="text/plain; charset=utf-8",
            )
            response["Allow"] = "POST"
            return response

        return posted

    return decorate
