"""The site's login forms (its own and the admin's), on the same per-address budget as the API's
token requests (tournaments/site/api/throttles.py); the admin's password form on the account's
budget of wrong old passwords, with the site's own."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse

from tournaments.site.api.throttles import (
    guessed_wrong,
    login_allowed,
    password_guess_allowed,
    too_many,
)


class LoginView(auth_views.LoginView):
    template_name = "site/login.html"
    redirect_authenticated_user = True

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        # Checked before the password is: a refused attempt costs no hashing either.
        refused = login_allowed(request)
        if refused is not None:
            return too_many(refused)
        return super().post(request, *args, **kwargs)


def limit_logins(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Another login form (the admin's) on the same budget."""

    @wraps(view)
    def limited(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method == "POST":
            refused = login_allowed(request)
            if refused is not None:
                return too_many(refused)
        return view(request, *args, **kwargs)

    return limited


def limit_password_guesses(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Another password form that takes the old password (the admin's), on the account's
    ``password_guesses`` budget: refused before the old password is checked once it is spent (a
    429, the login's line of text), and a wrong old password charged to it."""

    @wraps(view)
    def limited(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method != "POST" or not request.user.is_authenticated:
            return view(request, *args, **kwargs)
        refused = password_guess_allowed(request)
        if refused is not None:
            return too_many(refused)
        response = view(request, *args, **kwargs)
        # The admin answers a form it refused with the form (a TemplateResponse, not yet drawn).
        form = (getattr(response, "context_data", None) or {}).get("form")
        if form is not None and "old_password" in form.errors:
            guessed_wrong(request)
        return response

    return limited
