"""Accounts on the site: sign-up (the API's checks and per-address budget), password change,
named API tokens (shown once, stored hashed, accepted by the API beside the original token,
revoked), and the header's links."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tests.api.conftest import throttle_rates
from tests.factories import BotFactory, UserFactory
from tournaments.play import services, tokens
from tournaments.play.models import AccountOrigin, ApiToken

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-Passphrase-9"


def _logged_in(user: Any) -> Client:
    c = Client()
    c.force_login(user)
    return c


def _text(r: Any) -> str:
    return str(r.content.decode())


def _sign_up(c: Client, username: str, **extra: str) -> Any:
    body = {"username": username, "password": PASSWORD, "password2": PASSWORD, **extra}
    return c.post("/accounts/signup/", body, REMOTE_ADDR=extra.pop("addr", "192.0.2.7"))


def test_sign_up_makes_the_account_logs_it_in_and_keeps_its_address() -> None:
    c = Client()
    assert c.get("/accounts/signup/").status_code == 200
    r = _sign_up(c, "farage", email="n@example.com")
    assert r.status_code == 302 and r["Location"] == "/bots/mine/"
    page = c.get("/bots/mine/").content.decode()
    assert "Log out (farage)" in page and "My bots" in page and "Welcome, farage" in page
    # Signed in, the sign-up page leads to the account's bots (a second account needs a log-out).
    again = c.get("/accounts/signup/")
    assert again.status_code == 302 and again["Location"] == "/bots/mine/"
    assert AccountOrigin.objects.get(user__username="farage").address == "192.0.2.7"
    # The same account works with the API: its token exchange answers.
    api = APIClient()
    r = api.post(
        "/api/accounts/token/", {"username": "farage", "password": PASSWORD}, format="json"
    )
    assert r.status_code == 200


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"username": "taken"}, "username", "this username is taken"),
        ({"username": "bad name!"}, "username", "Enter a valid username"),
        ({"password": "123", "password2": "123"}, "password", "too short"),
        ({"password2": "something-else-9"}, "password2", "the two passwords differ"),
        ({"email": "not-an-address"}, "email", "valid email"),
    ],
)
def test_bad_sign_ups_are_a_400_with_the_message_and_keep_what_was_typed(
    body: dict[str, str], field: str, message: str
) -> None:
    UserFactory(username="Taken")
    c = Client()
    data = {"username": "newcomer", "password": PASSWORD, "password2": PASSWORD, **body}
    r = c.post("/accounts/signup/", data)
    assert r.status_code == 400
    html = r.content.decode()
    assert message in html, html
    assert f'value="{data["username"]}"' in html.replace("&#x27;", "'")
    assert c.get("/bots/mine/").status_code == 302  # not logged in: to the login


def test_site_sign_ups_share_the_api_budget_per_address() -> None:
    with throttle_rates(signups="2/hour"):
        assert _sign_up(Client(), "s0").status_code == 302
        api = APIClient(REMOTE_ADDR="192.0.2.7")
        r = api.post("/api/accounts/", {"username": "s1", "password": PASSWORD}, format="json")
        assert r.status_code == 201
        refused = _sign_up(Client(), "s2")
        # Another address has its own budget.
        other = _sign_up(Client(), "s3", addr="198.51.100.9")
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert "Too many attempts" in refused.content.decode()
    assert other.status_code == 302


def test_a_refused_sign_up_costs_no_budget() -> None:
    UserFactory(username="taken")
    with throttle_rates(signups="1/hour"):
        assert _sign_up(Client(), "taken").status_code == 400
        assert _sign_up(Client(), "fresh").status_code == 302


def test_password_change() -> None:
    user = UserFactory()
    c = _logged_in(user)
    assert c.get("/accounts/password/").status_code == 200
    wrong = c.post(
        "/accounts/password/",
        {"old_password": "nope", "new_password1": "x", "new_password2": "y"},
    )
    assert wrong.status_code == 400
    assert "Your old password was entered incorrectly" in wrong.content.decode()
    ok = c.post(
        "/accounts/password/",
        {"old_password": "pass-word-123", "new_password1": PASSWORD, "new_password2": PASSWORD},
    )
    assert ok.status_code == 302 and ok["Location"] == "/accounts/"
    assert "Your password is changed" in c.get("/accounts/").content.decode()
    assert Client().login(username=user.username, password=PASSWORD)


def test_finding_a_named_key_writes_nothing_and_using_it_notes_the_use_once_a_minute() -> None:
    """The selector reads (it may run on the replica); the service notes the use, not on every
    request (tokens.USED_EVERY)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from tournaments.play import selectors

    user = UserFactory()
    token, key = services.create_token(user=user, name="laptop")
    with CaptureQueriesContext(connection) as read:
        assert selectors.token_for_key(key) == token
    assert [q["sql"] for q in read.captured_queries if not q["sql"].startswith("SELECT")] == []
    token.refresh_from_db()
    assert token.last_used_at is None

    assert services.user_for_token(key=key) == user
    token.refresh_from_db()
    first = token.last_used_at
    assert first is not None
    assert services.user_for_token(key=key) == user  # a moment later: not written again
    token.refresh_from_db()
    assert token.last_used_at == first
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=first - tokens.USED_EVERY)
    assert services.user_for_token(key=key) == user
    token.refresh_from_db()
    assert token.last_used_at is not None and first <= token.last_used_at <= timezone.now()
    # An account that was deactivated keeps its token row, which lets nobody in.
    type(user).objects.filter(pk=user.pk).update(is_active=False)
    assert services.user_for_token(key=key) is None


def test_account_pages_need_a_login() -> None:
    c = Client()
    for url in ("/accounts/", "/accounts/password/", "/bots/mine/", "/bots/new/"):
        r = c.get(url)
        assert r.status_code == 302 and r["Location"].startswith("/accounts/login/"), url
    assert c.post("/accounts/tokens/", {"name": "x"}).status_code == 302
    assert not ApiToken.objects.exists()


def test_a_named_token_is_shown_once_kept_hashed_and_works_with_the_api() -> None:
    user = UserFactory()
    c = _logged_in(user)
    posted = c.post("/accounts/tokens/", {"name": "laptop"})
    assert (posted.status_code, posted["Location"]) == (302, "/accounts/")  # post/redirect/get
    r = c.get("/accounts/")
    assert r.status_code == 200
    assert r["Cache-Control"] == "no-store"
    key = r.context["key"]
    assert key.startswith("br_") and key in r.content.decode()
    assert "laptop" in r.content.decode()
    token = ApiToken.objects.get(user=user)
    assert token.name == "laptop" and key not in (token.prefix, token.digest)
    assert token.digest == hashlib.sha256(key.encode()).hexdigest()
    listing = c.get("/accounts/").content.decode()
    assert "laptop" in listing and key not in listing and "never" in listing

    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    me = api.get("/api/accounts/me/")
    assert me.status_code == 200 and me.data["username"] == user.username
    token.refresh_from_db()
    assert token.last_used_at is not None
    # A key with the right prefix but another secret is refused, as is a made-up one.
    for bad in (key[:-4] + "AAAA", "br_nope_nope", "br_"):
        api.credentials(HTTP_AUTHORIZATION=f"Token {bad}")
        assert api.get("/api/accounts/me/").status_code == 401, bad


def test_the_original_token_keeps_working_beside_named_ones() -> None:
    anon = APIClient()
    r = anon.post("/api/accounts/", {"username": "old", "password": PASSWORD}, format="json")
    original = r.data["token"]
    c = Client()
    assert c.login(username="old", password=PASSWORD)
    c.post("/accounts/tokens/", {"name": "ci"})
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {original}")
    assert api.get("/api/accounts/me/").status_code == 200


def test_revoking_a_token_refuses_it_from_then_on() -> None:
    user = UserFactory()
    c = _logged_in(user)
    key = c.post("/accounts/tokens/", {"name": "ci"}, follow=True).context["key"]
    token = ApiToken.objects.get(user=user)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get("/api/accounts/me/").status_code == 200
    # Another user cannot revoke it: a 404, as if absent.
    assert _logged_in(UserFactory()).post(f"/accounts/tokens/{token.pk}/revoke/").status_code == 404
    assert c.get(f"/accounts/tokens/{token.pk}/revoke/")["Location"] == "/accounts/"
    r = c.post(f"/accounts/tokens/{token.pk}/revoke/")
    assert r.status_code == 302
    assert not ApiToken.objects.exists()
    assert api.get("/api/accounts/me/").status_code == 401


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "give the token a name"),
        ("   ", "give the token a name"),
        ("x" * 61, "at most 60 characters"),
        ("tab\there", "control or invisible character"),
        ("ci", "you already have a token called"),
    ],
)
def test_bad_token_names_are_a_400_with_the_message(name: str, message: str) -> None:
    user = UserFactory()
    c = _logged_in(user)
    c.post("/accounts/tokens/", {"name": "ci"})
    r = c.post("/accounts/tokens/", {"name": name})
    assert r.status_code == 400
    assert message in r.content.decode().replace("&#x27;", "'")
    assert ApiToken.objects.filter(user=user).count() == 1


def test_an_account_has_at_most_so_many_tokens() -> None:

    user = UserFactory()
    for n in range(tokens.MAX_TOKENS):
        services.create_token(user=user, name=f"t{n}")
    r = _logged_in(user).post("/accounts/tokens/", {"name": "one more"})
    assert r.status_code == 400 and "revoke one first" in r.content.decode()


def test_a_token_of_a_deactivated_account_is_refused() -> None:
    user = UserFactory()
    key = _logged_in(user).post("/accounts/tokens/", {"name": "ci"}, follow=True).context["key"]
    user.is_active = False
    user.save(update_fields=["is_active"])
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get("/api/accounts/me/").status_code == 401


def test_the_header_links_sign_up_or_my_bots() -> None:
    anon = Client().get("/").content.decode()
    assert 'href="/accounts/signup/"' in anon and 'href="/bots/mine/"' not in anon
    mine = _logged_in(UserFactory()).get("/").content.decode()
    assert 'href="/bots/mine/"' in mine and 'href="/accounts/"' in mine
    assert 'href="/accounts/signup/"' not in mine


def test_a_new_key_is_shown_once_and_never_again_on_back_or_reload() -> None:
    user = UserFactory()
    c = _logged_in(user)
    shown = c.post("/accounts/tokens/", {"name": "ci"}, follow=True)
    key = shown.context["key"]
    assert shown.redirect_chain == [("/accounts/", 302)]
    again = c.get("/accounts/")  # a reload, or Back and Forward
    assert again.status_code == 200 and "key" not in again.context and key not in _text(again)
    # Another session of the same user never sees it either.
    assert key not in _text(_logged_in(user).get("/accounts/"))
    assert ApiToken.objects.filter(user=user).count() == 1


@pytest.mark.parametrize(
    ("url", "page"),
    [
        ("/accounts/tokens/", "/accounts/"),
        ("/accounts/tokens/{token}/revoke/", "/accounts/"),
        ("/bots/{bot}/upload/", "/bots/{bot}/manage/#upload"),
        ("/bots/{bot}/activate/", "/bots/{bot}/manage/#versions"),
        ("/bots/{bot}/webhook/", "/bots/{bot}/errors/#webhook"),
    ],
)
def test_a_get_on_a_form_s_address_goes_to_the_form_s_page(url: str, page: str) -> None:
    user = UserFactory()
    c = _logged_in(user)
    bot = BotFactory(owner=user)
    token, _key = services.create_token(user=user, name="ci")
    url, page = (x.format(bot=bot.pk, token=token.pk) for x in (url, page))
    r = c.get(url)
    assert (r.status_code, r["Location"]) == (302, page)
    assert c.head(url)["Location"] == page
    put = c.put(url)
    assert put.status_code == 405 and put["Allow"] == "POST"
    assert f"this address takes the form on {page} (POST)" in put.content.decode()
    assert ApiToken.objects.filter(user=user).count() == 1  # nothing was done
