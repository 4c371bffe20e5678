"""Every list's SQL query count does not grow with its page size.

Each list (every paginated one the schema names, the match events and the site's match
list) is read at a page of 2 and a page of 7, with more rows than that behind it; the two
must cost the same number of queries. A list that queried once per row (N+1) fails here.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.api.test_pagination import paginated_lists
from tests.factories import (
    BotFactory,
    BotLogFactory,
    BotVersionFactory,
    MatchFactory,
    SeatFactory,
    UserFactory,
    counted_moves,
    finish,
)
from tournaments.competition import selectors as competition_selectors
from tournaments.competition.models import Fixture, Ladder, Season, SeasonEntrant, Series
from tournaments.play.models import BotVersion, Fault
from tournaments.rating.models import Rating, RatingHistory

pytestmark = pytest.mark.django_db

ROWS = 10


@pytest.fixture
def world() -> dict[str, Any]:
    owner = UserFactory()
    mine = BotFactory(owner=owner, game="brexit", is_public=True)
    versions = [BotVersionFactory(bot=mine, status=BotVersion.Status.READY) for _ in range(ROWS)]
    others = [
        BotVersionFactory(bot__game="brexit", bot__is_public=True, status=BotVersion.Status.READY)
        for _ in range(ROWS)
    ]
    matches = []
    for n in range(ROWS):
        made = MatchFactory(game="brexit")
        for seat, version in enumerate((versions[n], others[n], others[(n + 1) % ROWS])):
            SeatFactory(match=made, number=seat, bot_version=version, builtin="")
        # The first (the pages of one match) with a stream of events before its end.
        matches.append(finish(made, events=counted_moves(3 * ROWS) if n == 0 else ()))
    for n, m in enumerate(matches):  # the bot's errors
        verdict = "crash" if n % 2 else "timeout"
        Fault.objects.create(
            bot=mine,
            bot_version=versions[n],
            match=m,
            seat=0,
            step=n + 3,
            asked_step=n + 1,
            verdict=verdict,
        )
    watched = matches[0]
    for step in range(ROWS):
        BotLogFactory(match=watched, seat=0, version=step + 1, verdict="ok", text=f"line {step}")
    # One ladder per game and seat count: 8 in all.
    for game, seats in [("brexit", k) for k in range(2, 6)] + [
        ("brasilis", k) for k in range(3, 7)
    ]:
        Ladder.objects.create(name=f"{game} {seats}", game=game, seats=seats, builtins=["random"])
    for n in range(ROWS):
        season = Season.objects.create(name=f"season {n}", game="brexit", seats=3)
        SeasonEntrant.objects.create(season=season, bot_version=others[n])
        SeasonEntrant.objects.create(season=season, builtin="random")
    for n in range(ROWS):  # the owner's series (a list of one's own)
        Series.objects.create(
            owner=owner, name=f"series {n}", game="brexit", seats=3, deals=1,
            players=["builtin:random", "builtin:greedy", f"v:{versions[n].pk}"],
        )  # fmt: skip
    ladder = Ladder.objects.get(game="brexit", seats=3)
    season = Season.objects.order_by("id")[0]
    for n, (version, m) in enumerate(zip(others, matches, strict=True)):
        player = f"v:{version.pk}"
        Rating.objects.create(
            pool=f"ladder:{ladder.pk}", player=player, ladder=ladder, bot_version=version,
            mu=25, sigma=2, elo=1500, rating=1600, deviation=50, conservative=1450 + n, games=3,
        )  # fmt: skip
        RatingHistory.objects.create(
            match=m, position=n, pool=f"ladder:{ladder.pk}", player=player, bot_version=version,
            rank=1, mu_before=25, sigma_before=3, mu_after=26, sigma_after=2.9,
            rating_before=1500, rating_after=1510, elo_before=1500, elo_after=1510,
        )  # fmt: skip
        Fixture.objects.create(
            season=season, round=n, table=0, game_number=0, players=[player], seed=n, match=m
        )
    return {
        "owner": owner,
        "ids": {
            "{id}": mine.pk,
            "{bot_id}": mine.pk,
            "{match_id}": watched.pk,
            "{ladder_id}": ladder.pk,
            "{season_id}": season.pk,
        },
        "match": watched,
    }


def _urls(world: dict[str, Any]) -> list[tuple[str, str]]:
    """(url, the parameter that sets its page size)."""
    urls = []
    for path in paginated_lists():
        for key, value in world["ids"].items():
            path = path.replace(key, str(value))
        urls.append((path, "limit"))
    m = world["match"].pk
    return [
        *urls,
        (f"/api/matches/{m}/events/", "limit"),
        (f"/api/matches/{m}/events/?seat=0", "limit"),
    ]


def _queries(c: Client, url: str, size_param: str, size: int) -> tuple[int, int]:
    sep = "&" if "?" in url else "?"
    with CaptureQueriesContext(connection) as ctx:
        r = c.get(f"{url}{sep}{size_param}={size}")
    assert r.status_code == 200, (url, r.status_code, r.content[:300])
    body = r.json()
    rows = body.get("results", body.get("events"))
    assert rows is not None and len(rows) == size, (url, size, len(rows or []))
    return len(ctx.captured_queries), len(rows)


@pytest.mark.parametrize("who", ["anon", "owner", "staff"])
def test_no_list_queries_once_per_row(world: dict[str, Any], who: str) -> None:
    c = Client()
    if who != "anon":
        staff: Any = UserFactory(is_staff=True)
        c.force_login(world["owner"] if who == "owner" else staff)
    grows = []
    for url, param in _urls(world):
        if "/logs/" in url and who == "anon":
            continue  # logs are for logged-in users
        if "seat=0" in url and who == "anon":
            continue
        if url.startswith("/api/series/") and who != "owner":
            continue  # one's own series: anyone else lists none
        small, _ = _queries(c, url, param, 2)
        large, _ = _queries(c, url, param, 7)
        if large > small:
            grows.append((url, small, large))
    assert grows == []


def test_the_site_match_list_does_not_query_once_per_row(world: dict[str, Any]) -> None:
    c = Client()
    c.force_login(world["owner"])
    counts = []
    for _ in range(2):
        with CaptureQueriesContext(connection) as ctx:
            assert c.get("/matches/").status_code == 200
        counts.append(len(ctx.captured_queries))
        for _ in range(ROWS):
            m = MatchFactory(game="brexit")
            SeatFactory(match=m, number=0, bot_version=BotVersion.objects.first(), builtin="")
            finish(m)
    assert counts[1] <= counts[0]


def test_the_ladder_list_counts_members_as_matchmaking_does(world: dict[str, Any]) -> None:

    BotVersionFactory(bot__game="brasilis", status=BotVersion.Status.READY)
    rows = Client().get("/api/ladders/", {"limit": 20}).json()["results"]
    assert len(rows) == 8
    for row in rows:
        ladder = Ladder.objects.get(pk=row["id"])
        assert row["members"] == len(competition_selectors.members(ladder)), row
        assert (
            row["rated_players"]
            == Rating.objects.filter(pool=competition_selectors.pool(ladder)).count()
        )
    assert {row["rated_players"] for row in rows} == {0, ROWS}
