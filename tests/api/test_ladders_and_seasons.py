"""/api/ladders/ and /api/seasons/: anonymous reads, filters, pagination, private bots kept private."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.factories import BotFactory, BotVersionFactory, MatchFactory, RatingFactory, finish
from tournaments.competition.models import Fixture, Ladder, Season, SeasonEntrant
from tournaments.rating.models import Rating, RatingHistory

pytestmark = pytest.mark.django_db


def rating(ladder: Ladder, player: str, value: float, **kw: object) -> Rating:
    made: Rating = RatingFactory(  # type: ignore[assignment]
        ladder=ladder, player=player, rating=value, deviation=50.0, games=10, **kw
    )
    return made


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
    assert [r["score"] for r in rows] == [1550.0, 1450.0, 1250.0]  # 3 x the median deviation
    assert [r["provisional"] for r in rows] == [False, False, False]
    api.force_authenticate(private.bot.owner)
    rows = api.get(f"/api/ladders/{ladder.pk}/ratings/").json()["results"]
    assert rows[0]["name"] == "secret v1"
    assert api.get("/api/ladders/999999/ratings/").status_code == 404


def test_a_provisional_bot_is_listed_after_the_established_ones(ladder: Ladder) -> None:
    rating(ladder, "builtin:random", 1400.0, builtin="random")
    new = rating(ladder, "builtin:greedy", 1900.0, builtin="greedy")
    new.games = 7
    new.save()
    rows = APIClient().get(f"/api/ladders/{ladder.pk}/ratings/").json()["results"]
    assert [(r["name"], r["provisional"]) for r in rows] == [
        ("builtin:random", False),
        ("builtin:greedy", True),
    ]


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
    match = finish(MatchFactory(rated=True, season=season))
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


def history_row(ladder: Ladder, player: str, position: int, **kw: object) -> RatingHistory:
    return RatingHistory.objects.create(
        match=MatchFactory(rated=True, ladder=ladder),
        position=position,
        pool=f"ladder:{ladder.pk}",
        player=player,
        rank=1,
        mu_before=25,
        sigma_before=8,
        mu_after=26,
        sigma_after=7,
        rating_before=1500,
        rating_after=1510,
        elo_before=1500,
        elo_after=1508,
        **kw,
    )


def test_a_private_bot_plays_the_ladder_under_an_opaque_key_with_no_version_id(
    ladder: Ladder, staff: Any
) -> None:
    """Outside review F13: anonymous readers saw "v:19" and bot_version 19 and could follow it."""
    public = BotVersionFactory(bot__name="sharp")
    private = BotVersionFactory(bot=BotFactory(name="secret", is_public=False))
    key = f"v:{private.pk}"
    rating(ladder, f"v:{public.pk}", 1600.0, bot_version=public)
    rating(ladder, key, 1700.0, bot_version=private)
    for position in (1, 2):
        history_row(ladder, key, position, bot_version=private)
        history_row(ladder, f"v:{public.pk}", position, bot_version=public)
    url = f"/api/ladders/{ladder.pk}"
    api = APIClient()
    [hidden, shown] = api.get(f"{url}/ratings/").json()["results"]
    assert (hidden["name"], hidden["bot"], hidden["bot_version"]) == ("(private bot)", None, None)
    assert hidden["player"].startswith("p:") and key not in api.get(f"{url}/ratings/").text
    assert (shown["player"], shown["bot_version"]) == (f"v:{public.pk}", public.pk)
    # Stable: the same key on every read and in the history, and ?player= finds it.
    assert api.get(f"{url}/ratings/").json()["results"][0]["player"] == hidden["player"]
    rows = api.get(f"{url}/history/").json()["results"]
    assert {r["player"] for r in rows} == {hidden["player"], f"v:{public.pk}"}
    mine = api.get(f"{url}/history/", {"player": hidden["player"]}).json()
    assert mine["count"] == 2 and {r["player"] for r in mine["results"]} == {hidden["player"]}
    # Its real key finds nothing, as a missing one would; a made-up opaque key neither.
    assert api.get(f"{url}/history/", {"player": key}).json()["count"] == 0
    assert api.get(f"{url}/history/", {"player": "p:" + "0" * 24}).json()["count"] == 0
    assert api.get(f"{url}/history/", {"player": f"v:{public.pk}"}).json()["count"] == 2
    # Its owner and staff see it as it is, by either key.
    for who in (private.bot.owner, staff):
        api.force_authenticate(who)
        top = api.get(f"{url}/ratings/").json()["results"][0]
        assert (top["player"], top["bot_version"], top["bot"]) == (key, private.pk, private.bot_id)
        assert api.get(f"{url}/history/", {"player": key}).json()["count"] == 2
        assert api.get(f"{url}/history/", {"player": hidden["player"]}).json()["count"] == 2


def test_a_private_season_entrant_is_opaque_in_entrants_standings_and_schedule() -> None:
    private = BotVersionFactory(bot=BotFactory(name="secret", is_public=False))
    key = f"v:{private.pk}"
    row = {"place": 1, "elo": 1550.0, "low": 1400.0, "high": 1700.0, "games": 1}
    season = Season.objects.create(
        name="autumn",
        game="brexit",
        seats=2,
        state="finished",
        standings=[
            {**row, "player": key, "name": "secret v1"},
            {**row, "place": 2, "player": "builtin:random", "name": "builtin:random"},
        ],
    )
    SeasonEntrant.objects.create(season=season, bot_version=private)
    SeasonEntrant.objects.create(season=season, builtin="random")
    Fixture.objects.create(
        season=season, round=1, table=1, game_number=1, players=[key, "builtin:random"], seed=5
    )
    api = APIClient()
    detail, schedule = (api.get(f"/api/seasons/{season.pk}/{end}") for end in ("", "schedule/"))
    assert key not in detail.text + schedule.text
    body, [fixture] = detail.json(), schedule.json()["results"]
    opaque = body["entrants"][0]["player"]
    assert opaque.startswith("p:")
    assert body["standings"][0]["player"] == opaque == fixture["players"][0]
    assert body["standings"][0]["name"] == body["entrants"][0]["name"] == "(private bot)"
    api.force_authenticate(private.bot.owner)
    body = api.get(f"/api/seasons/{season.pk}/").json()
    [fixture] = api.get(f"/api/seasons/{season.pk}/schedule/").json()["results"]
    assert body["entrants"][0]["player"] == body["standings"][0]["player"] == key
    assert fixture["players"] == [key, "builtin:random"]
