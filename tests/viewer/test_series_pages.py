"""The series pages: the form starts a series or an A/B test for a logged-in user, a series'
page shows its results (an A/B test's LLR path as an SVG between its bounds) to its owner and
staff only, and the bot page links to the form for the bot's owner."""

from __future__ import annotations

import re
from typing import Any, cast

import pytest
from django.test import Client

from games.engine.builtin import builtin_names
from tests.factories import BotVersionFactory, UserFactory
from tests.tournaments.test_series import finish, play_out, twin_outcome
from tournaments.competition import services as series_service
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
        {
            "name": "three",
            "game": "brexit",
            "kind": "series",
            "players": ["builtin:greedy", "builtin:random", "builtin:bold"],
            "deals": "1",
        },
    )
    assert page.status_code == 302
    series = Series.objects.get()
    assert page["Location"] == f"/series/{series.pk}/"
    assert series.players == ["builtin:greedy", "builtin:random", "builtin:bold"]
    for match in Match.objects.filter(series=series):
        finish(match, [1, 2, 3], [3.0, 2.0, 1.0])
    html = client(owner).get(f"/series/{series.pk}/").content.decode()
    assert "greedy (built-in)" in html and "Head to head" in html and "Strengths" in html
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
            "kind": "test",
            "candidate": "builtin:greedy",
            "baseline": "builtin:cautious",
            "field": ["builtin:random", "builtin:bold"],
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


def ready(**fields: Any) -> BotVersion:
    """A ready version (``bot__...`` fields make its bot)."""
    return cast(BotVersion, BotVersionFactory(status=BotVersion.Status.READY, **fields))


@pytest.mark.django_db
def test_the_pickers_offer_yours_public_ones_and_builtins_of_the_game_only() -> None:
    me = UserFactory(username="ana")
    mine = ready(bot__owner=me, bot__name="Alpha", bot__is_public=False)
    public = ready(bot__name="Beta", bot__owner=UserFactory(username="bea"))
    private = ready(bot__name="Secret", bot__is_public=False)  # another user's, private
    rejected = cast(BotVersion, BotVersionFactory(bot=mine.bot, status="rejected"))
    other_game = ready(bot__owner=me, bot__game="brasilis", bot__name="Gamma")
    page = client(me).get("/series/?game=brexit")
    assert page.status_code == 200
    html = page.content.decode()
    offered = {f"v:{mine.pk}", f"v:{public.pk}"} | {
        f"builtin:{name}" for name in builtin_names("brexit")
    }
    # Each picker: the series' players, the test's candidate, baseline and field.
    assert html.count('name="players"') == len(offered)
    assert html.count('name="field"') == len(offered)
    for name in ("candidate", "baseline"):
        picker = html.split(f'<select id="pick-{name}" name="{name}"', 1)[1].split("</select>", 1)[
            0
        ]
        assert set(re.findall(r'value="([^"]+)"', picker)) == offered
        for title in ("Your versions", "Public bots", "Built-ins"):
            assert f'<optgroup label="{title}">' in picker
    assert "Alpha v1" in html and "Beta v1 by bea" in html and "greedy (built-in)" in html
    for absent in (private, rejected, other_game):
        assert f'value="v:{absent.pk}"' not in html
    assert "Secret" not in html and "Gamma" not in html
    # The other game's page offers Gamma and that game's built-ins, not Alpha.
    html = client(me).get("/series/?game=brasilis").content.decode()
    assert f'value="v:{other_game.pk}"' in html and f'value="v:{mine.pk}"' not in html
    # A link from the bot page keeps its version chosen.
    html = client(me).get(f"/series/?game=brexit&candidate=v{mine.pk}").content.decode()
    assert f'<option value="v:{mine.pk}" selected>' in html


@pytest.mark.django_db(transaction=True)
def test_another_users_private_version_is_refused_and_names_are_shown() -> None:
    me = UserFactory()
    mine = ready(bot__owner=me, bot__name="Alpha")
    private = ready(bot__name="Secret", bot__is_public=False)
    form = {"game": "brexit", "kind": "series", "deals": "1"}
    page = client(me).post(
        "/series/", {**form, "players": [f"v:{mine.pk}", f"v:{private.pk}", "builtin:greedy"]}
    )
    assert page.status_code == 400
    html = page.content.decode()
    assert f"unknown bot version {private.pk}" in html and "Secret" not in html
    assert not Series.objects.exists()
    page = client(me).post(
        "/series/", {**form, "players": [f"v:{mine.pk}", "builtin:greedy", "builtin:random"]}
    )
    assert page.status_code == 302
    series = Series.objects.get()
    for match in Match.objects.filter(series=series):
        finish(match, [1, 2, 3], [3.0, 2.0, 1.0])
    html = client(me).get(f"/series/{series.pk}/").content.decode()
    assert "Alpha v1" in html and "random (built-in)" in html
    assert ">v:" not in html and ">builtin:" not in html  # no key shown as a name
    listed = client(me).get("/series/").content.decode()
    assert "Alpha v1, greedy (built-in), random (built-in)" in listed


@pytest.mark.django_db
def test_a_bot_made_private_since_is_not_named_on_the_series_pages() -> None:
    me = UserFactory()
    theirs = ready(bot__name="Beta")
    players = [f"v:{theirs.pk}", "builtin:greedy", "builtin:random"]
    form = {"game": "brexit", "kind": "series", "deals": "1", "players": players}
    assert client(me).post("/series/", form).status_code == 302
    series = Series.objects.get()
    assert "Beta v1" in client(me).get(f"/series/{series.pk}/").content.decode()
    theirs.bot.is_public = False
    theirs.bot.save()
    for url in (f"/series/{series.pk}/", "/series/"):
        html = client(me).get(url).content.decode()
        assert "Beta" not in html and "(private bot)" in html


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("form", "message"),
    [
        (
            {"kind": "test", "baseline": "builtin:greedy", "field": "builtin:random"},
            "choose one player as the candidate",
        ),
        (
            {
                "kind": "test",
                "candidate": "builtin:bold",
                "baseline": "builtin:greedy",
                "field": ["builtin:random", "builtin:bold"],
            },
            "each player may take one seat only",
        ),
        (
            {"kind": "series", "players": ["builtin:greedy"], "deals": "1"},
            "takes 2 to 5 seats, not 1",
        ),
        (
            {
                "kind": "series",
                "players": ["v:abc", "builtin:greedy", "builtin:random"],
                "deals": "1",
            },
            "unknown builtin",
        ),
        (
            {
                "kind": "series",
                "players": ["builtin:greedy", "builtin:random", "builtin:bold"],
                "deals": "x",
            },
            "Deals: must be a whole number",
        ),
        (
            {
                "kind": "test",
                "candidate": "builtin:bold",
                "baseline": "builtin:greedy",
                "field": ["builtin:random", "builtin:cautious"],
                "alpha": "lots",
            },
            "alpha: must be a number",
        ),
        (
            {
                "kind": "test",
                "candidate": "builtin:bold",
                "baseline": "builtin:greedy",
                "field": ["builtin:random", "builtin:cautious"],
                "max_games": "100000",
            },
            "Pairs at most: must be a whole number from 1 to",
        ),
        (
            {"kind": "test", "candidate": "builtin:bold", "baseline": "builtin:greedy"},
            "Field: choose at least one player",
        ),
        ({"kind": "series", "deals": "1"}, "Players: choose at least one player"),
    ],
)
def test_bad_picks_are_a_400_that_says_why(form: dict[str, Any], message: str) -> None:
    page = client(UserFactory()).post("/series/", {"game": "brexit", **form})
    assert page.status_code == 400
    html = page.content.decode()
    assert message in html and not Series.objects.exists()
    # The form's own words, never the API's fields (test:, max_games, {bot_version: id}).
    said = re.search(r'<div class="error" role="alert">(.*?)</div>', html, re.S)
    assert said is not None
    assert not re.search(r"<p>(test|players|deals):|max_games|bot_version|builtin: name", said[1])


@pytest.mark.django_db
def test_an_unknown_game_is_a_400_that_says_why() -> None:
    page = client(UserFactory()).get("/series/?game=chess")
    assert page.status_code == 400 and "unknown game &#x27;chess&#x27;" in page.content.decode()
    page = client(UserFactory()).post("/series/", {"game": "chess", "kind": "series"})
    assert page.status_code == 400 and "unknown game" in page.content.decode()


def _csrf(html: str) -> str:
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert found is not None
    return found[1]


@pytest.mark.django_db(transaction=True)
def test_the_owner_cancels_a_running_series_from_its_page() -> None:
    owner = UserFactory()
    series = series_service.create_series(
        user=owner,
        game="brexit",
        name="long",
        players=[{"builtin": "greedy"}, {"builtin": "random"}, {"builtin": "bold"}],
        deals=50,
    )
    assert Match.objects.filter(series=series, status=Match.Status.QUEUED).exists()
    url = f"/series/{series.pk}/cancel/"
    # Nobody else sees the series, nor may cancel it; a GET changes nothing.
    assert client(UserFactory()).post(url).status_code == 404
    assert Client().post(url)["Location"].startswith("/accounts/login/")
    assert client(owner).get(url)["Location"] == f"/series/{series.pk}/"
    # The form carries its CSRF token, and a POST without one is refused.
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(cast(Any, owner))
    html = browser.get(f"/series/{series.pk}/").content.decode()
    assert f'action="{url}"' in html and "Cancel the series" in html
    assert browser.post(url).status_code == 403
    series.refresh_from_db()
    assert series.state == Series.State.RUNNING
    done = browser.post(url, {"csrfmiddlewaretoken": _csrf(html)}, follow=True)
    assert done.redirect_chain == [(f"/series/{series.pk}/", 302)]
    series.refresh_from_db()
    assert series.state == Series.State.CANCELLED
    assert not Match.objects.filter(series=series, status=Match.Status.QUEUED).exists()
    page = done.content.decode()
    assert "long is cancelled" in page and 'id="series-cancel"' not in page
    # Again (another tab): said, not a 500.
    again = browser.post(url, {"csrfmiddlewaretoken": _csrf(page)}, follow=True)
    assert "the series is cancelled, not running" in again.content.decode()


@pytest.mark.django_db(transaction=True)
def test_staff_may_cancel_a_series_too() -> None:
    series = series_service.create_series(
        user=UserFactory(),
        game="brexit",
        name="theirs",
        players=[{"builtin": "greedy"}, {"builtin": "random"}],
        deals=50,
    )
    staff = client(UserFactory(is_staff=True))
    assert 'id="series-cancel"' in staff.get(f"/series/{series.pk}/").content.decode()
    assert staff.post(f"/series/{series.pk}/cancel/").status_code == 302
    series.refresh_from_db()
    assert series.state == Series.State.CANCELLED
