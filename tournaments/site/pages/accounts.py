"""An account on the site: sign up, change the password, and named API tokens.

Sign-up takes the API's shape (``AccountCreateSerializer``), its service and its per-address
budget (``SignupThrottle``): a sign-up on the site and one through ``POST /api/accounts/``
are the same thing, refused with the same messages, and counted together. A token revoked and
a password changed each retire every cached token lookup: they share a per-account budget
(``TokenChangeThrottle``, docs/api.md).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.views.decorators.http import require_http_methods

from tournaments.play import selectors, services, tokens
from tournaments.site.api import serializers as s
from tournaments.site.api.throttles import (
    SignupThrottle,
    TokenChangeThrottle,
    charge_accepted,
    guessed_wrong,
    password_guess_allowed,
    too_many,
    write_allowed,
)
from tournaments.site.pages import budgets
from tournaments.site.pages.form_posts import form_on

Errors = dict[str, list[str]]


def field_errors(errors: Any) -> Errors:
    """A serializer's or a service's errors as field -> messages (non-field ones under "form")."""
    out: Errors = {}
    for field, found in dict(errors).items():
        name = "form" if field == "non_field_errors" else str(field)
        items = found if isinstance(found, list) else [found]
        out.setdefault(name, []).extend(str(e) for e in items)
    return out


@require_http_methods(["GET", "HEAD", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("site-my-bots")
    values = {"username": "", "email": ""}
    errors: Errors = {}
    if request.method == "POST":
        throttle = SignupThrottle()
        if not write_allowed(throttle, request):
            return too_many(throttle)
        data = {k: request.POST.get(k, "") for k in ("username", "password", "email")}
        values = {"username": data["username"], "email": data["email"]}
        shape = s.AccountCreateSerializer(data=data)
        if data["password"] != request.POST.get("password2", ""):
            errors["password2"] = ["the two passwords differ"]
        if not shape.is_valid():
            errors = {**field_errors(shape.errors), **errors}
        if not errors:
            try:
                user, _key = services.create_account(
                    **shape.validated_data, address=throttle.get_ident(request)
                )
            except services.Invalid as exc:
                errors = field_errors(exc.errors)
            else:
                charge_accepted(request)
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
                messages.success(request, f"Welcome, {user.get_username()}: create your first bot.")
                return redirect("site-my-bots")
    return render(
        request,
        "site/signup.html",
        {"values": values, "errors": errors},
        status=400 if errors else 200,
    )


class PasswordChangeView(auth_views.PasswordChangeView):
    """A new password retires every cached token lookup (token_cache): on the account's
    ``tokens`` budget, checked before the old password is (a refusal costs no hashing either)
    and charged once the new one is saved. A wrong old password is charged to the account's
    ``password_guesses`` budget, checked first: past it, no old password is checked."""

    template_name = "site/password.html"
    success_url = reverse_lazy("site-account")

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        guesses = password_guess_allowed(request)
        if guesses is not None:
            return self._refused(budgets.GUESSES, guesses)
        throttle = TokenChangeThrottle()
        if not write_allowed(throttle, request):
            return self._refused(budgets.TOKENS, throttle)
        return super().post(request, *args, **kwargs)

    def _refused(self, template: str, throttle: Any) -> HttpResponse:
        # The form unbound (empty): a bound one would check the old password to show its
        # errors, the hashing (and the answer to a guess) a refusal withholds.
        unbound = {k: v for k, v in self.get_form_kwargs().items() if k not in ("data", "files")}
        context = self.get_context_data(
            form=self.get_form_class()(**unbound), refused=[budgets.message(template, throttle)]
        )
        return budgets.refused(self.render_to_response(context), throttle)

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        charge_accepted(self.request)
        messages.success(self.request, "Your password is changed.")
        return response

    def form_invalid(self, form: Any) -> HttpResponse:
        if "old_password" in form.errors:
            guessed_wrong(self.request)
        response = super().form_invalid(form)
        response.status_code = 400
        return response


def _account(request: HttpRequest, **extra: Any) -> dict[str, Any]:
    return {
        "tokens": selectors.tokens_of(request.user),
        "max_tokens": tokens.MAX_TOKENS,
        "values": {"name": ""},
        "errors": {},
        **extra,
    }


NEW_KEY = "new_token"
"""The session's slot for a key just made: the account page takes it out as it shows it."""


@login_required
@require_http_methods(["GET", "HEAD"])
def account(request: HttpRequest) -> HttpResponse:
    new = request.session.pop(NEW_KEY, None)
    created = new and next(
        (t for t in selectors.tokens_of(request.user) if t.pk == new["id"]), None
    )
    if not created:
        return render(request, "site/account.html", _account(request))
    response = render(
        request, "site/account.html", _account(request, created=created, key=new["key"])
    )
    response["Cache-Control"] = "no-store"  # the key is on this page once: kept by no cache
    return response


@login_required
@form_on("site-account")
def token_create(request: HttpRequest) -> HttpResponse:
    name = request.POST.get("name", "")
    try:
        token, key = services.create_token(user=request.user, name=name)
    except services.Invalid as exc:
        context = _account(request, values={"name": name}, errors=field_errors(exc.errors))
        return render(request, "site/account.html", context, status=400)
    # Post/redirect/get: the key waits in the session (server-side) for the one page that shows
    # it, so Back, Forward or a reload never post the form again; the database keeps only its
    # digest.
    request.session[NEW_KEY] = {"id": token.pk, "key": key}
    return redirect("site-account")


@login_required
@form_on("site-account")
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    # A revocation retires every cached token lookup: on the account's ``tokens`` budget.
    throttle = TokenChangeThrottle()
    if not write_allowed(throttle, request):
        context = _account(request, errors={"form": [budgets.message(budgets.TOKENS, throttle)]})
        return budgets.refused(render(request, "site/account.html", context), throttle)
    if not services.revoke_token(user=request.user, token_id=token_id):
        raise Http404("you have no such token")
    charge_accepted(request)
    messages.success(request, "The token is revoked: requests with it are refused from now on.")
    return redirect("site-account")
