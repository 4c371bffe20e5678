"""Rate limits on what is worth abusing: sign-ups, tokens, logins, uploads, challenges and forks.

Each answers 429 with Retry-After once over its rate. A challenge, fork, upload or sign-up
refused with a 400 creates nothing, so it does not use up the budget; a login or token
attempt counts whether or not the password was right (that is what guessing looks like).
X-Forwarded-For is believed only when a proxy is configured (``NUM_PROXIES``, default 0).
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.conf import settings
from django.test import Client, override_settings
from rest_framework.test import APIClient

from tests.api.conftest import Enqueued, throttle_rates
from tests.factories import UserFactory
from tests.viewer.conftest import play
from tournaments.play.models import Match

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-pass-phrase-9"
THREE_RANDOM = {"game": "brexit", "seats": [{"builtin": "random"}] * 3}


def sign_up(c: APIClient, name: str, **extra: Any) -> Any:
    body = {"username": name, "password": PASSWORD}
    return c.post("/api/accounts/", body, format="json", **extra)


def assert_429(r: Any) -> None:
    assert r.status_code == 429, r.content
    assert int(r["Retry-After"]) > 0


def test_x_forwarded_for_does_not_get_fresh_sign_ups(anon: APIClient) -> None:
    with throttle_rates(signups="1/hour"):
        assert sign_up(anon, "a", HTTP_X_FORWARDED_FOR="10.0.0.1").status_code == 201
        assert_429(sign_up(anon, "b", HTTP_X_FORWARDED_FOR="10.0.0.2"))


def test_behind_a_configured_proxy_its_forwarded_address_is_the_client(anon: APIClient) -> None:
    rest = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    with override_settings(REST_FRAMEWORK=rest), throttle_rates(signups="1/hour"):
        # The proxy appends the address it saw: the last entry is the one to trust.
        assert sign_up(anon, "a", HTTP_X_FORWARDED_FOR="6.6.6.6, 10.0.0.1").status_code == 201
        assert sign_up(anon, "b", HTTP_X_FORWARDED_FOR="6.6.6.6, 10.0.0.2").status_code == 201
        assert_429(sign_up(anon, "c", HTTP_X_FORWARDED_FOR="7.7.7.7, 10.0.0.2"))


def test_refused_sign_ups_do_not_count(anon: APIClient) -> None:
    with throttle_rates(signups="1/hour"):
        for _ in range(3):
            assert sign_up(anon, "bad name!").status_code == 400
        assert sign_up(anon, "good").status_code == 201
        assert_429(sign_up(anon, "good2"))


def test_token_requests_are_limited_right_or_wrong(anon: APIClient) -> None:
    user = UserFactory(password=PASSWORD)
    with throttle_rates(logins="2/hour"):
        wrong = {"username": user.username, "password": "guess"}
        assert anon.post("/api/accounts/token/", wrong, format="json").status_code == 401
        right = {"username": user.username, "password": PASSWORD}
        assert anon.post("/api/accounts/token/", right, format="json").status_code == 200
        assert_429(anon.post("/api/accounts/token/", right, format="json"))


def test_site_logins_are_limited_and_share_the_budget(anon: APIClient) -> None:
    user = UserFactory(password=PASSWORD)
    site = Client()
    with throttle_rates(logins="2/hour"):
        wrong = {"username": user.username, "password": "guess"}
        assert site.post("/accounts/login/", wrong).status_code == 200  # the form, with its error
        assert anon.post("/api/accounts/token/", wrong, format="json").status_code == 401
        r = site.post("/accounts/login/", {"username": user.username, "password": PASSWORD})
        assert_429(r)
        assert "_auth_user_id" not in site.session
        assert site.get("/accounts/login/").status_code == 200  # reading the form is free


def test_the_admin_login_is_on_the_same_budget() -> None:
    staff = UserFactory(password=PASSWORD, is_staff=True)
    c = Client()
    with throttle_rates(logins="1/hour"):
        wrong = {"username": staff.username, "password": "guess"}
        assert c.post("/admin/login/", wrong).status_code == 200
        assert_429(c.post("/admin/login/", {"username": staff.username, "password": PASSWORD}))
        assert "_auth_user_id" not in c.session


def test_refused_challenges_do_not_use_up_the_budget(api: APIClient, enqueued: Enqueued) -> None:
    with throttle_rates(challenges="1/hour"):
        for bad in ({"game": "chess"}, {**THREE_RANDOM, "seats": []}, {**THREE_RANDOM, "seed": -1}):
            assert api.post("/api/matches/", bad, format="json").status_code == 400
        assert api.post("/api/matches/", THREE_RANDOM, format="json").status_code == 201
        assert_429(api.post("/api/matches/", THREE_RANDOM, format="json"))
    assert Match.objects.count() == 1


def test_forks_share_the_challenge_budget_and_refusals_do_not_count(
    client_for: Any, enqueued: Enqueued
) -> None:
    owner = UserFactory()
    finished = play("brexit", 3, owner, seed=5)
    api = client_for(owner)
    url = f"/api/matches/{finished.pk}/fork/"
    half = {"step": finished.last_version // 2}
    with throttle_rates(challenges="2/hour"):
        for bad in ({"step": 0}, {"step": 10**6}):
            assert api.post(url, bad, format="json").status_code == 400
        r = api.post(url, half, format="json")
        assert r.status_code == 201, r.content
        assert api.post("/api/matches/", THREE_RANDOM, format="json").status_code == 201
        assert_429(api.post(url, half, format="json"))
        assert_429(api.post("/api/matches/", THREE_RANDOM, format="json"))


def test_refused_uploads_do_not_use_up_the_budget(
    api: APIClient, user: Any, enqueued: Enqueued
) -> None:
    bot = api.post("/api/bots/", {"game": "brexit", "name": "b"}, format="json").json()
    url = f"/api/bots/{bot['id']}/versions/"
    with throttle_rates(uploads="1/hour"):
        for bad in ({}, {"source": "x", "filename": "a.exe"}):
            assert api.post(url, bad, format="json").status_code == 400
        good = {"source": "def act(observation, legal):\n    return None\n"}
        assert api.post(url, good, format="json").status_code == 201
        assert_429(api.post(url, good, format="json"))


NEW = {"new_password1": "another-Passphrase-7", "new_password2": "another-Passphrase-7"}


def _signed_in(user: Any) -> Client:
    c = Client()
    c.force_login(user)
    return c


def test_wrong_old_passwords_on_the_site_are_limited_per_account() -> None:
    """A session cannot guess its account's password through the password form: past the
    account's ``password_guesses`` budget the form is a 429 with Retry-After and a sentence, the
    old password is not checked (a right one changes nothing either); a right old password does
    not use the budget, and another account's is its own."""
    user, other = UserFactory(password=PASSWORD), UserFactory(password=PASSWORD)
    site = _signed_in(user)
    with throttle_rates(password_guesses="2/hour"):
        changed = site.post("/accounts/password/", {"old_password": PASSWORD, **NEW})
        assert changed.status_code == 302  # right: not counted
        for guess in ("guess-1", ""):  # a missing one is a wrong one
            r = site.post("/accounts/password/", {"old_password": guess, **NEW})
            assert r.status_code == 400 and "old_password" in r.context["form"].errors
        right = {"old_password": NEW["new_password1"]} | {k: "third-Passphrase-5" for k in NEW}
        refused = site.post("/accounts/password/", right)
        assert_429(refused)
        text = refused.content.decode()
        assert "wrong current password was given for your account as often as it may be" in text
        assert "(2/hour)" in text and "Try again in" in text
        assert 'name="old_password"' in text and "third-Passphrase-5" not in text
        assert site.get("/accounts/password/").status_code == 200  # reading the form is free
        theirs = _signed_in(other).post("/accounts/password/", {"old_password": PASSWORD, **NEW})
        assert theirs.status_code == 302
    user.refresh_from_db()
    assert user.check_password(NEW["new_password1"])


def test_the_admin_password_form_shares_the_account_s_budget_of_wrong_old_passwords() -> None:
    staff = UserFactory(password=PASSWORD, is_staff=True)
    site, admin = _signed_in(staff), _signed_in(staff)
    with throttle_rates(password_guesses="2/hour"):
        wrong = {"old_password": "guess", **NEW}
        assert site.post("/accounts/password/", wrong).status_code == 400
        r = admin.post("/admin/password_change/", wrong)
        assert r.status_code == 200 and b"old password was entered incorrectly" in r.content
        assert_429(admin.post("/admin/password_change/", {"old_password": PASSWORD, **NEW}))
        assert_429(site.post("/accounts/password/", {"old_password": PASSWORD, **NEW}))
        assert admin.get("/admin/password_change/").status_code == 200
    staff.refresh_from_db()
    assert staff.check_password(PASSWORD)


def test_the_admin_password_form_is_still_staff_only() -> None:
    user = UserFactory(password=PASSWORD)
    r = _signed_in(user).post("/admin/password_change/", {"old_password": PASSWORD, **NEW})
    assert r.status_code == 302 and "/admin/login/" in r["Location"]
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


def test_password_changes_go_through_while_the_cache_is_down(caplog: Any) -> None:
    """The guesses' budget fails open as every limit does (Redis holds its counter): a wrong old
    password is the form's 400, a right one changes the password, each with a warning."""
    dead = {
        "BACKEND": "config.cache.KeptClientRedisCache",
        "LOCATION": "redis://127.0.0.1:9/0",  # the discard port: nothing listens there
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
    }
    user = UserFactory(password=PASSWORD)
    site = _signed_in(user)
    with (
        override_settings(CACHES={"default": dead}),
        throttle_rates(password_guesses="1/hour"),
        caplog.at_level(logging.WARNING, logger="tournaments.site.api.throttles"),
    ):
        for _ in range(2):
            assert (
                site.post("/accounts/password/", {"old_password": "no", **NEW}).status_code == 400
            )
        assert (
            site.post("/accounts/password/", {"old_password": PASSWORD, **NEW}).status_code == 302
        )
    assert "rate limit 'password_guesses' not applied" in caplog.text
    user.refresh_from_db()
    assert user.check_password(NEW["new_password1"])
