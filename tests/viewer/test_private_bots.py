"""One rule for private bots everywhere: to anyone but the owner and staff a private bot's
seat is "(private bot)", with no id, owner or link, and filtering on it finds nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.factories import (
    BotFactory,
    BotVersionFactory,
    MatchFactory,
    SeatFactory,
    UserFactory,
    finish,
)
from tournaments.competition import seasons
from tournaments.competition.models import Ladder, Season, SeasonEntrant
from tournaments.rating.models import Rating

pytestmark = pytest.mark.django_db

WHO = ["anon", "other", "owner", "staff"]
SEES = {"anon": False, "other": False, "owner": True, "staff": True}
NAME = "bob-private"
OWNER = "bob-the-owner"


@pytest.fixture
def world() -> dict[str, Any]:
    owner = UserFactory.create(username=OWNER)
    bot = BotFactory(name=NAME, owner=owner, game="brexit", is_public=False)
    version = BotVersionFactory(bot=bot)
    ladder = Ladder.objects.create(name="brexit ladder", game="brexit", seats=3)
    season = Season.objects.create(name="brexit season", game="brexit", seats=3, state="running")
    SeasonEntrant.objects.create(season=season, bot_version=version)
    for builtin in ("greedy", "random"):
        SeasonEntrant.objects.create(season=season, builtin=builtin)
    for winner in ("private", "greedy", "random"):
        match = MatchFactory(game="brexit", season=season, ladder=ladder)
        order = [winner, *(p for p in ("private", "greedy", "random") if p != winner)]
        for number, who in enumerate(order):
            SeatFactory(
                match=match,
                number=number,
                bot_version=version if who == "private" else None,
                builtin="" if who == "private" else who,
            )
        finish(match)  # seat 0 first, then 1, then 2
    seasons.recompute_standings(season=season)
    Rating.objects.create(
        pool=f"ladder:{ladder.pk}",
        player=f"v:{version.pk}",
        ladder=ladder,
        bot_version=version,
        mu=25,
        sigma=2,
        elo=1500,
        rating=1600,
        deviation=50,
        conservative=1450,
        games=3,
    )
    return {
        "owner": owner,
        "bot": bot,
        "version": version,
        "ladder": ladder,
        "season": season,
        "match": match,
    }


def client(who: str, owner: Any) -> Client:
    c = Client()
    if who == "owner":
        c.force_login(owner)
    elif who == "other":
        c.force_login(UserFactory.create(username="somebody-else"))
    elif who == "staff":
        c.force_login(UserFactory.create(username="a-staffer", is_staff=True))
    return c


PAGES = [
    lambda w: "/",
    lambda w: "/matches/",
    lambda w: f"/matches/{w['match'].pk}/",
    lambda w: f"/ladders/{w['ladder'].pk}/",
    lambda w: f"/seasons/{w['season'].pk}/",
    lambda w: f"/api/matches/{w['match'].pk}/",
    lambda w: f"/api/matches/{w['match'].pk}/events/",
    lambda w: f"/api/ladders/{w['ladder'].pk}/ratings/",
    lambda w: f"/api/seasons/{w['season'].pk}/",
]


@pytest.mark.parametrize("who", WHO)
@pytest.mark.parametrize("page", range(len(PAGES)))
def test_a_private_bot_is_named_only_to_its_owner_and_staff(
    world: dict[str, Any], who: str, page: int
) -> None:
    url = PAGES[page](world)
    response = client(who, world["owner"]).get(url)
    assert response.status_code == 200, url
    body = response.content.decode()
    named = NAME in body
    assert named == SEES[who], url
    if not SEES[who]:
        assert "(private bot)" in body, url
        assert OWNER not in body, url
        assert f"/bots/{world['bot'].pk}/" not in body, url
        if url.startswith("/api/matches/") and not url.endswith("events/"):
            seat = response.json()["seats"][0]
            assert seat["bot"] is None and seat["bot_version"] is None and seat["owner"] is None


@pytest.mark.parametrize("who", WHO)
def test_filtering_on_a_private_bot_finds_nothing_for_others(
    world: dict[str, Any], who: str
) -> None:
    c = client(who, world["owner"])
    bot = world["bot"].pk
    page = c.get(f"/api/matches/?bot={bot}").json()  # the list pages by cursor: no count
    assert len(page["results"]) == (3 if SEES[who] else 0) and page["next"] is None
    html = c.get(f"/matches/?bot={bot}").content.decode()
    assert (f"/matches/{world['match'].pk}/" in html) == SEES[who]
    assert c.get(f"/bots/{bot}/").status_code == (200 if SEES[who] else 404)
