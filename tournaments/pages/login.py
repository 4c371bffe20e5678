"""The site's login form, with the same per-address budget as the API's token requests."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse

from tournaments.api.throttles import login_allowed, too_many


class LoginView(auth_views.LoginView):
    template_name = "replays/login.html"
    redirect_authenticated_user = True

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        # Checked before the password is: a refused attempt costs no hashing either.
        refused = login_allowed(request)
        if refused is not None:
            return too_many(refused)
        return super().post(request, *args, **kwargs)
