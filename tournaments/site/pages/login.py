"""The site's login forms (its own and the admin's), on the same per-address budget as the API's
token requests (tournaments/site/api/throttles.py)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse

from tournaments.site.api.throttles import login_allowed, too_many


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
