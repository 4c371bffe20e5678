"""The site's own login: any user (not only staff) logs in and gets their owner's view."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.factories import BotLogFactory, UserFactory
from tests.viewer.conftest import play, running_copy

pytestmark = pytest.mark.django_db

SECRET = "owner-only-stderr-line"


def logged_in(user: Any, next_url: str) -> tuple[Client, Any]:
    """A client that logged in through the site's form (not force_login), and the response."""
    c = Client()
    form = c.get(f"/accounts/login/?next={next_url}")
    assert form.status_code == 200 and 'name="password"' in form.content.decode()
    response = c.post(
        "/accounts/login/",
        {"username": user.username, "password": "pass-word-123", "next": next_url},
    )
    return c, response


def test_an_ordinary_owner_logs_in_and_sees_their_seat_and_stderr() -> None:
    owner = UserFactory()
    assert not owner.is_staff
    match = running_copy(play("brexit", 3, None, seed=9), upto=12, owner=owner)
    BotLogFactory(match=match, seat=0, version=5, text=SECRET)
    page = f"/matches/{match.pk}/"
    c, response = logged_in(owner, page)
    assert response.status_code == 302 and response["Location"] == page
    html = c.get(page).content.decode()
    assert f"Log out ({owner.username})" in html
    assert SECRET in html and "(seat 0)" in html
    assert c.get(f"{page}?view=seat0").status_code == 200


def test_another_logged_in_user_sees_neither() -> None:
    owner, other = UserFactory(), UserFactory()
    match = running_copy(play("brexit", 3, None, seed=9), upto=12, owner=owner)
    BotLogFactory(match=match, seat=0, version=5, text=SECRET)
    page = f"/matches/{match.pk}/"
    c, response = logged_in(other, page)
    assert response.status_code == 302
    html = c.get(page).content.decode()
    assert f"Log out ({other.username})" in html
    assert SECRET not in html and "(seat 0)" not in html
    assert c.get(f"{page}?view=seat0").status_code == 404


def test_bad_password_stays_on_the_form_and_logout_logs_out() -> None:
    user = UserFactory()
    c = Client()
    bad = c.post("/accounts/login/", {"username": user.username, "password": "nope"})
    assert bad.status_code == 200 and "do not match" in bad.content.decode()
    c, _ = logged_in(user, "/")
    assert c.post("/accounts/logout/").status_code == 302
    assert "Log in" in c.get("/").content.decode()


@pytest.mark.parametrize(
    ("page", "link"),
    [
        ("/accounts/login/", 'href="/accounts/login/"'),
        ("/accounts/login/?next=/series/", 'href="/accounts/login/?next=/series/"'),
        ("/accounts/signup/", 'href="/accounts/login/"'),
        ("/matches/", 'href="/accounts/login/?next=/matches/"'),
    ],
)
def test_the_log_in_link_never_comes_back_to_the_login_page(page: str, link: str) -> None:
    html = Client().get(page).content.decode()
    assert f"{link}>Log in</a>" in html
    assert "next=/accounts/login/" not in html and "next=/accounts/signup/" not in html
