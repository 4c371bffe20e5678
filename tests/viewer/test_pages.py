"""The site's pages render real matches: home, the match list, the viewer, a bot."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from games.engine.platform_events import PLATFORM_EVENTS
from games.engine.registry import get
from replays import store
from tests.factories import UserFactory
from tests.viewer.conftest import play
from tournaments.competition.models import Ladder, Season
from tournaments.play.models import Bot, Match, Seat

pytestmark = pytest.mark.django_db


def test_home_shows_both_games_and_the_latest_matches(client: Client, brexit_match: Match) -> None:
    r = client.get("/")
    assert r.status_code == 200
    html = r.content.decode()
    assert "Brexit: The Real Deal" in html and "Bra$ilis" in html
    assert f"/matches/{brexit_match.pk}/" in html
    assert "/api/docs/" in html and "/docs/bots/" in html


@pytest.mark.parametrize("name", ["bots", "api", "brexit", "brasilis", "builtin-bots", "cli"])
def test_bot_author_docs_are_served(client: Client, name: str) -> None:
    r = client.get(f"/docs/{name}/")
    assert r.status_code == 200
    html = r.content.decode()
    assert ("<h1>" in html and "<pre><code>" in html) or "<table>" in html
    assert "<script>" not in html.split("</footer>")[0].split('<article class="doc">')[1]


def test_the_bots_doc_links_the_api_and_cli_docs_on_the_site(client: Client) -> None:
    html = client.get("/docs/bots/").content.decode()
    assert 'href="/docs/api/"' in html and 'href="/docs/cli/"' in html


def test_unknown_doc_is_404(client: Client) -> None:
    assert client.get("/docs/settings/").status_code == 404
    assert client.get("/docs/..%2Fpyproject/").status_code == 404


@pytest.mark.parametrize("fixture", ["brexit_match", "brasilis_match"])
@pytest.mark.parametrize("view", ["public", "seat1", "all"])
def test_viewer_renders_every_step_kind(
    client: Client, request: pytest.FixtureRequest, fixture: str, view: str
) -> None:
    match: Match = request.getfixturevalue(fixture)
    for step in (0, 1, match.last_version // 2, match.last_version):
        r = client.get(f"/matches/{match.pk}/?step={step}&view={view}")
        assert r.status_code == 200, (step, r.content[:500])
        assert f'data-step="{step}"' in r.content.decode()
        board = client.get(f"/matches/{match.pk}/board/?step={step}&view={view}")
        assert board.status_code == 200


def first(match: Match, event_type: str) -> int:
    return next(e.version for e in store.read(match.id) if e.type == event_type)


def test_brexit_board_shows_countries_and_players(client: Client, brexit_match: Match) -> None:
    step = first(brexit_match, "countries_revealed")
    html = client.get(f"/matches/{brexit_match.pk}/?step={step}").content.decode()
    assert 'class="country' in html
    assert "England" in html and "Scotland" in html
    assert "★ start" in html


def test_brasilis_board_shows_scale_fury_and_stacks(client: Client, brasilis_match: Match) -> None:
    step = first(brasilis_match, "card_played")
    html = client.get(f"/matches/{brasilis_match.pk}/?step={step}").content.decode()
    for word in ("HEAVEN", "HELL", "Fury", "slices", 'class="stack"'):
        assert word in html


def _first_step_with_pizza(match: Match) -> dict[int, int]:
    """Slices of pizza left (news set aside for the round) -> the first step showing that many."""
    rules = get(match.game).rules
    state, steps = rules.new_state(), {}
    for event in store.read(match.id):
        if event.type not in PLATFORM_EVENTS:
            state = rules.fold(state, event.as_engine_event())
        steps.setdefault(rules.observe(state, None).get("pool_size", 0), event.version)
    return steps


def test_the_pizza_counts_its_slices_in_words(client: Client, brasilis_match: Match) -> None:
    steps = _first_step_with_pizza(brasilis_match)
    shown = {
        slices: client.get(f"/matches/{brasilis_match.pk}/board/?step={steps[slices]}")
        .content.decode()
        .split('class="pill pizza"')[1]
        .split("</span>")[0]
        for slices in (1, 2)
    }
    assert shown[1].endswith(">Pizza: 1 slice")  # "1 slices" until issue 24
    assert shown[2].endswith(">Pizza: 2 slices")


def test_scores_read_as_whole_numbers_and_real_fractions_stay(
    client: Client, owner: Any, brexit_match: Match
) -> None:
    """The seats' scores are floats in the database: the ranking showed "score 9.0"."""
    Seat.objects.filter(match=brexit_match, number=0).update(
        bot_version=None, player=owner, score=9.0
    )
    Seat.objects.filter(match=brexit_match, number=1).update(score=2.5)
    client.force_login(owner)
    ranking = client.get(f"/matches/{brexit_match.pk}/play/").content.decode()
    assert re.search(r'data-seat="0"[^<]*<b>\d\.</b> [^<]* \(you\) · score 9</li>', ranking)
    assert "score 2.5</li>" in ranking and ".0</li>" not in ranking
    staff: Any = UserFactory(is_staff=True, is_superuser=True)
    client.force_login(staff)
    change = client.get(f"/admin/tournaments/match/{brexit_match.pk}/change/").content.decode()
    scores = re.findall(r'field-score_shown">\s*<p>([^<]*)</p>', change)
    assert scores[:2] == ["9", "2.5"], scores


def test_one_match_is_listed_as_one_match(client: Client, brexit_match: Match) -> None:
    html = client.get(f"/matches/?game={brexit_match.game}").content.decode()
    assert html.count(f'href="/matches/{brexit_match.pk}/"') == 1  # not once per seat


def test_match_list_filters_and_paginates(
    client: Client, brexit_match: Match, brasilis_match: Match
) -> None:
    html = client.get("/matches/?game=brasilis").content.decode()
    assert f"/matches/{brasilis_match.pk}/" in html
    assert f"/matches/{brexit_match.pk}/" not in html
    bot = Bot.objects.get(versions__seats__match=brexit_match)
    html = client.get(f"/matches/?bot={bot.pk}").content.decode()
    assert f"/matches/{brexit_match.pk}/" in html and f"/matches/{brasilis_match.pk}/" not in html
    assert client.get("/matches/?page=99&game=nonsense").status_code == 400  # as the API


def test_bot_page_lists_versions_and_matches(client: Client, brexit_match: Match) -> None:
    bot = Bot.objects.get(versions__seats__match=brexit_match)
    html = client.get(f"/bots/{bot.pk}/").content.decode()
    assert bot.name in html and "v1" in html
    assert f"/matches/{brexit_match.pk}/" in html


def test_bad_view_is_404_not_500(client: Client, brexit_match: Match) -> None:
    assert client.get(f"/matches/{brexit_match.pk}/?view=seat9").status_code == 404
    assert client.get(f"/matches/{brexit_match.pk}/?view=nonsense").status_code == 404


@pytest.mark.parametrize("step", ["abc", "-1", "1.5", " 7", "1_000", "\u0661\u0662", "9" * 30])
@pytest.mark.parametrize("where", ["", "board/"])
def test_a_step_that_is_not_a_whole_number_is_a_400_that_says_so(
    client: Client, brexit_match: Match, step: str, where: str
) -> None:
    """As the API answers: int() alone would take Unicode digits, spaces and underscores."""
    response = client.get(f"/matches/{brexit_match.pk}/{where}", {"step": step})
    assert response.status_code == 400
    assert "step must be a whole number" in response.content.decode() or (
        "step is too large" in response.content.decode()
    )


def test_a_step_past_the_end_shows_the_last_one(client: Client, brexit_match: Match) -> None:
    """A live match's link may name a step that is about to happen: clamped, not refused."""
    response = client.get(f"/matches/{brexit_match.pk}/", {"step": "999999"})
    assert response.status_code == 200
    assert f'data-step="{brexit_match.last_version}"' in response.content.decode()


@pytest.mark.parametrize("name", ["bot", "season", "ladder"])
@pytest.mark.parametrize("value", ["x", "\u0661", "99999999999999999999"])
def test_match_list_filters_that_are_not_ids_are_a_400(
    client: Client, name: str, value: str
) -> None:
    response = client.get("/matches/", {name: value})
    assert response.status_code == 400 and name in response.content.decode()
    assert client.get("/matches/", {name: ""}).status_code == 200


@pytest.mark.parametrize(
    ("name", "value"), [("game", "chess"), ("status", "zzz"), ("game", "BREXIT")]
)
def test_match_list_filters_naming_no_game_or_status_are_a_400(
    client: Client, name: str, value: str
) -> None:
    """Not the whole list unfiltered, as if the filter had been read: the API's 400 too."""
    response = client.get("/matches/", {name: value})
    assert response.status_code == 400
    assert f"{name} must be one of" in response.content.decode()
    assert client.get("/matches/", {name: ""}).status_code == 200
    assert client.get("/matches/", {"game": "brexit", "status": "finished"}).status_code == 200


@pytest.mark.parametrize("digits", [5000, 4400, 999])
def test_a_number_of_thousands_of_digits_is_a_400_too(
    client: Client, brexit_match: Match, digits: int
) -> None:
    """int() refuses strings of over 4,300 digits with an error of its own (it was a 500); no
    query parameter may be over 1,000 characters long (tournaments/site/query_params.py), and within
    that a step's leading zeros are still read."""
    huge = "9" * digits if digits == 5000 else "0" * digits + "5"  # the others are step 5
    response = client.get(f"/matches/{brexit_match.pk}/", {"step": huge})
    if digits == 999:
        assert response.status_code == 200 and 'data-step="5"' in response.content.decode()
    else:
        assert response.status_code == 400
        assert "&#x27;step&#x27; is longer than 1000" in response.content.decode()
    assert client.get("/matches/", {"bot": "9" * 5000}).status_code == 400
    too_large = client.get(f"/matches/{brexit_match.pk}/", {"step": "9" * 40})
    assert too_large.status_code == 400 and "step is too large" in too_large.content.decode()


def test_the_log_poll_refuses_a_bad_after(client: Client, brexit_match: Match) -> None:
    refused = client.get(f"/matches/{brexit_match.pk}/log/", {"after": "x"})
    assert refused.status_code == 400 and "after must be a whole number" in refused.json()["detail"]
    assert client.get(f"/matches/{brexit_match.pk}/log/", {"after": "3"}).status_code == 200


def test_static_and_offline_api_docs(client: Client) -> None:
    html = client.get("/api/docs/").content.decode()
    assert "cdn" not in html.lower() and "swagger-ui" in html
    assert "/static/drf_spectacular_sidecar/" in html


@pytest.mark.parametrize("kind", ["ladder", "season"])
def test_ladder_and_season_pages_rank_bots_by_results(
    client: Client, owner: Any, kind: str
) -> None:
    model = Ladder if kind == "ladder" else Season
    # The home page lists running seasons only.
    extra = {"state": Season.State.RUNNING} if kind == "season" else {}
    competition = model.objects.create(name=f"The {kind}", game="brexit", **extra)
    first = play("brexit", 3, owner, seed=31)
    Match.objects.filter(pk=first.pk).update(**{kind: competition})
    bot = Bot.objects.get(versions__seats__match=first)
    html = client.get(f"/{kind}s/{competition.pk}/").content.decode()
    assert f"The {kind}" in html and bot.name in html
    assert f"/matches/{first.pk}/" in html
    home = client.get("/").content.decode()
    assert f"/{kind}s/{competition.pk}/" in home
    assert client.get(f"/{kind}s/999999/").status_code == 404


def test_the_docs_links_and_mentions_of_served_docs_lead_to_them(client: Client) -> None:
    html = client.get("/docs/api/").content.decode()
    # [reliability.md](reliability.md) and the prose's "(docs/ladders.md)" were plain text.
    assert '<a href="/docs/reliability/">reliability.md</a>' in html
    assert '<a href="/docs/ladders/">docs/ladders.md</a>' in html
    for name in ("ladders", "reliability"):
        assert client.get(f"/docs/{name}/").status_code == 200
    # A link to a heading of another doc keeps its anchor, and the heading has it.
    bots = client.get("/docs/bots/").content.decode()
    assert 'href="/docs/api/#who-sees-what"' in bots
    assert '<h2 id="who-sees-what">' in html
    # Every link the docs pages make leads to a page that exists.
    for name in ("bots", "api", "cli", "ab-tests", "builtin-bots", "ladders", "reliability"):
        page = client.get(f"/docs/{name}/").content.decode()
        for target in set(re.findall(r'href="(/docs/[^"#]*)', page)):
            assert client.get(target).status_code == 200, (name, target)
