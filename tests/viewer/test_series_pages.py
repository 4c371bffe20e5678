"""The series pages: the form starts a series or an A/B test for a logged-in user, a series'
page shows its results (an A/B test's LLR path as an SVG between its bounds) to its owner and
staff only, and the bot page links to the form for the bot's owner."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.factories import BotVersionFactory, UserFactory
from tests.tournaments.test_series import finish, play_out, twin_outcome
from tournaments.competition.models import Series
from tournaments.play.models import BotVersion, Match


def client(user: Any) -> Client:
    c = Client()
    c.force_login(user)
    return c


@pytest.mark.django_db(transaction=True)
def test_the_form_starts_a_series_and_its_page_shows_the_results() -> None:
    owner = UserFactory()
    page = client(owner).post(
        "/series/",
        {"name": "three", "game": "brexit", "players": "greedy random bold", "deals": "1"},
    )
    assert page.status_code == 302
    series = Series.objects.get()
    assert page["Location"] == f"/series/{series.pk}/"
    assert series.players == ["builtin:greedy", "builtin:random", "builtin:bold"]
    for match in Match.objects.filter(series=series):
        finish(match, [1, 2, 3], [3.0, 2.0, 1.0])
    html = client(owner).get(f"/series/{series.pk}/").content.decode()
    assert "builtin:greedy" in html and "Head to head" in html and "Strengths" in html
    assert html.count('class="status status-finished"') == 3
    assert client(UserFactory()).get(f"/series/{series.pk}/").status_code == 404
    assert client(UserFactory(is_staff=True)).get(f"/series/{series.pk}/").status_code == 200
    assert Client().get(f"/series/{series.pk}/").status_code == 404


@pytest.mark.django_db
def test_a_bad_form_is_a_400_that_says_why() -> None:
    page = client(UserFactory()).post(
        "/series/", {"game": "brexit", "players": "greedy nosuchbot", "deals": "2"}
    )
    assert page.status_code == 400
    assert "unknown builtin" in page.content.decode() and not Series.objects.exists()
    assert Client().get("/series/").status_code == 302  # to the login page


@pytest.mark.django_db(transaction=True)
def test_an_ab_tests_page_draws_its_llr_path_between_its_bounds() -> None:
    owner = UserFactory()
    page = client(owner).post(
        "/series/",
        {
            "game": "brexit",
            "candidate": "greedy",
            "baseline": "cautious",
            "field": "random bold",
            "elo0": "0",
            "elo1": "200",
            "alpha": "0.1",
            "beta": "0.1",
            "max_games": "20",
        },
    )
    assert page.status_code == 302
    series = play_out(
        Series.objects.get(), twin_outcome("builtin:greedy", "builtin:cautious", True)
    )
    assert series.verdict == "H1"
    html = client(owner).get(f"/series/{series.pk}/").content.decode()
    assert "H1, the candidate is better" in html
    assert html.count('class="bound"') == 2 and "<polyline points=" in html
    assert "log-likelihood ratio after each of 6 pairs" in html


@pytest.mark.django_db
def test_the_bot_page_links_its_owner_to_the_form() -> None:
    version: BotVersion = BotVersionFactory(status=BotVersion.Status.READY)  # type: ignore[assignment]
    html = client(version.bot.owner).get(f"/bots/{version.bot_id}/").content.decode()
    assert f"/series/?game=brexit&amp;candidate=v{version.pk}" in html
    assert "/series/?" not in client(UserFactory()).get(f"/bots/{version.bot_id}/").content.decode()
