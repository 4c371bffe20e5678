"""/api/ladders/ and /api/seasons/: anonymous reads, filters, pagination, private bots kept private."""

from __future__ import annotations

import uuid

import pytest
from rest_framework.test import APIClient

from tests.factories import BotFactory, BotVersionFactory, MatchFactory
from tournaments.models import Fixture, Ladder, Rating, RatingHistory, Season, SeasonEntrant

pytestmark = pytest.mark.django_db


def rating(ladder: Ladder, player: str, value: float, **kw: object) -> Rating:
    return Rating.objects.create(
        pool=f"ladder:{ladder.pk}",
        player=player,
        ladder=ladder,
        mu=25.0,
        sigma=2.0,
        elo=1500.0,
        rating=value,
        deviation=50.0,
        conservative=value - 150.0,
        games=10,
        **kw,
    )


@pytest.fixture
def ladder() -> Ladder:
    return Ladder.objects.create(name="brexit 4", game="brexit", seats=4, builtins=["random"])


def test_ladders_are_listed_and_filtered_for_anonymous_readers(ladder: Ladder) -> None:
    Ladder.objects.create(name="brasilis 3", game="brasilis", seats=3)
    api = APIClient()
    body = api.get("/api/ladders/").json()
    assert body["count"] == 2
    only = api.get("/api/ladders/", {"game": "brexit", "seats": "4"}).json()["results"]
    assert [(lad["name"], lad["members"]) for lad in only] == [("brexit 4", 1)]
    assert api.get("/api/ladders/", {"seats": 9}).status_code == 400


def test_ratings_best_first_with_private_bots_named_neutrally(ladder: Ladder) -> None:
    public = BotVersionFactory(bot__name="sharp")
    private = BotVersionFactory(bot=BotFactory(name="secret", is_public=False))
    rating(ladder, f"v:{public.pk}", 1600.0, bot_version=public)
    rating(ladder, f"v:{private.pk}", 1700.0, bot_version=private)
    rating(ladder, "builtin:random", 1400.0, builtin="random")
    api = APIClient()
    rows = api.get(f"/api/ladders/{ladder.pk}/ratings/").json()["results"]
    assert [r["name"] for r in rows] == ["(private bot)", "sharp v1", "builtin:random"]
    assert rows[0]["bot"] is None and rows[1]["bot"] == public.bot_id
    api.force_authenticate(private.bot.owner)
    rows = api.get(f"/api/ladders/{ladder.pk}/ratings/").json()["results"]
    assert rows[0]["name"] == "secret v1"
    assert api.get("/api/ladders/999999/ratings/").status_code == 404


def test_rating_history_per_bot_is_paginated(ladder: Ladder) -> None:
    for position in range(1, 4):
        match = MatchFactory(rated=True, ladder=ladder)
        for player in ("builtin:random", "builtin:greedy"):
            RatingHistory.objects.create(
                match=match,
                position=position,
                pool=f"ladder:{ladder.pk}",
                player=player,
                builtin=player.split(":")[1],
                rank=1,
                mu_before=25,
                sigma_before=8,
                mu_after=26,
                sigma_after=7,
                rating_before=1500 + position,
                rating_after=1510 + position,
                elo_before=1500,
                elo_after=1508,
            )
    api = APIClient()
    page = api.get(
        f"/api/ladders/{ladder.pk}/history/", {"player": "builtin:random", "limit": "2"}
    ).json()
    assert page["count"] == 3 and len(page["results"]) == 2 and page["next"]
    assert [r["position"] for r in page["results"]] == [1, 2]
    assert page["results"][0]["change"] == 10
    assert api.get(f"/api/ladders/{ladder.pk}/history/", {"player": "nobody"}).status_code == 400


def test_seasons_with_entrants_schedule_progress_and_standings() -> None:
    season = Season.objects.create(
        name="autumn",
        game="brexit",
        seats=2,
        state="finished",
        standings=[
            {
                "place": 1,
                "player": "builtin:random",
                "name": "builtin:random",
                "elo": 1550.0,
                "low": 1400.0,
                "high": 1700.0,
                "games": 2,
            }
        ],
    )
    SeasonEntrant.objects.create(season=season, builtin="random")
    SeasonEntrant.objects.create(season=season, builtin="greedy")
    match = MatchFactory(rated=True, season=season, status="finished")
    Fixture.objects.create(
        season=season,
        round=1,
        table=1,
        game_number=1,
        players=["builtin:random", "builtin:greedy"],
        seed=5,
        match=match,
    )
    Fixture.objects.create(
        season=season,
        round=1,
        table=1,
        game_number=2,
        players=["builtin:greedy", "builtin:random"],
        seed=5,
    )
    Season.objects.create(name="draft one", game="brasilis")
    api = APIClient()
    assert api.get("/api/seasons/", {"state": "finished"}).json()["count"] == 1
    assert api.get("/api/seasons/", {"state": "nonsense"}).status_code == 400
    body = api.get(f"/api/seasons/{season.pk}/").json()
    assert [e["name"] for e in body["entrants"]] == ["builtin:random", "builtin:greedy"]
    assert body["progress"] == {"finished": 1, "scheduled": 2}
    assert body["standings_final"] and body["standings"][0]["low"] == 1400.0
    schedule = api.get(f"/api/seasons/{season.pk}/schedule/").json()["results"]
    assert [(f["match"], f["status"]) for f in schedule] == [
        (str(match.pk), "finished"),
        (None, "scheduled"),
    ]
    assert api.get(f"/api/seasons/{uuid.uuid4().int % 10**6 + 10**6}/").status_code == 404


def test_ladders_and_seasons_are_in_the_openapi_schema() -> None:
    schema = APIClient().get("/api/schema/").content.decode()
    for path in (
        "/api/ladders/",
        "/api/ladders/{ladder_id}/ratings/",
        "/api/ladders/{ladder_id}/history/",
        "/api/seasons/",
        "/api/seasons/{season_id}/",
        "/api/seasons/{season_id}/schedule/",
    ):
        assert path in schema
