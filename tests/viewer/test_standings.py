"""Ladder, season and home standings on the site read the ratings the API serves."""

from __future__ import annotations

import re
import statistics
from typing import Any

import pytest
from django.test import Client

from tests.factories import (
    BotFactory,
    BotVersionFactory,
    MatchFactory,
    RatingFactory,
    SeatFactory,
    finish,
)
from tournaments.competition.models import Ladder, Season
from tournaments.rating import settling
from tournaments.rating.models import Rating, RatingHistory
from tournaments.rating.ratings import ELO_PER_MU, Skill

pytestmark = pytest.mark.django_db


def rating(
    ladder: Ladder, player: str, value: float, deviation: float, games: int = 10, **kw: object
) -> Rating:
    made: Rating = RatingFactory(  # type: ignore[assignment]
        ladder=ladder, player=player, rating=value, deviation=deviation, games=games, **kw
    )
    return made


def names_in_order(html: str, names: list[str]) -> list[str]:
    return sorted(names, key=lambda n: html.index(n))


@pytest.fixture
def ladder() -> Ladder:
    ladder = Ladder.objects.create(name="brexit four", game="brexit", seats=4)
    version = BotVersionFactory(bot__name="sharp", bot__game="brexit")
    # By rating alone "sharp" leads; provisional (5 of 8 games), it is listed last.
    rating(ladder, f"v:{version.pk}", 1720.0, 190.0, games=5, bot_version=version)
    rating(ladder, "builtin:greedy", 1650.0, 40.0, builtin="greedy")
    rating(ladder, "builtin:random", 1400.0, 30.0, builtin="random")
    return ladder


def test_ladder_page_lists_established_bots_by_score_then_provisional_ones(ladder: Ladder) -> None:
    html = Client().get(f"/ladders/{ladder.pk}/").content.decode()
    assert "1720 ± 190" in html and "1650 ± 40" in html and "1400 ± 30" in html
    assert "5 of 8, provisional" in html and re.search(r"<td>2</td><td>builtin:random", html)
    assert names_in_order(html, ["sharp v1", "builtin:greedy", "builtin:random"]) == [
        "builtin:greedy",
        "builtin:random",
        "sharp v1",
    ]


def test_home_shows_a_top_table_per_ladder_not_raw_text(ladder: Ladder) -> None:
    html = Client().get("/").content.decode()
    assert " in ladder:" not in html
    assert re.search(r"builtin:greedy</td><td class=\"num\">1650 ± 40</td>", html)
    assert html.index("builtin:greedy") < html.index("builtin:random") < html.index("sharp v1")
    assert re.search(
        r'sharp v1</a></td><td class="num">1720<abbr title="provisional[^"]*">\?</abbr> ± 190', html
    )
    assert "? provisional: fewer than 8 games" in html


def test_season_page_shows_fitted_standings_with_intervals_and_builtins() -> None:
    season = Season.objects.create(name="demo", game="brexit", seats=3, state="running")
    for winner in ("greedy", "greedy", "random"):
        match = MatchFactory(game="brexit", season=season)
        others = [b for b in ("greedy", "random", "search") if b != winner]
        for number, name in enumerate([winner, *others]):
            SeatFactory(match=match, number=number, bot_version=None, builtin=name)
        finish(match)  # seat 0 first, then 1, then 2
    html = Client().get(f"/seasons/{season.pk}/").content.decode()
    assert "No finished matches yet" not in html
    assert "builtin:greedy" in html and "builtin:search" in html
    assert "95% interval" in html and re.search(r"\d+ \u2013 \d+", html)
    assert html.index("builtin:greedy") < html.index("builtin:search")


def rated(
    version: Any, position: int, value: float, *, ladder: Ladder | None = None, season: Any = None
) -> RatingHistory:
    """One rated match of ``version`` in the ladder's or the season's pool, rated ``value`` after."""
    pool = f"ladder:{ladder.pk}" if ladder is not None else f"season:{season.pk}"
    made: RatingHistory = RatingHistory.objects.create(
        match=finish(MatchFactory(game="brexit", ladder=ladder, season=season)),
        position=position,
        pool=pool,
        player=f"v:{version.pk}",
        bot_version=version,
        rank=1,
        mu_before=25,
        sigma_before=8,
        mu_after=26,
        sigma_after=7,
        rating_before=value - 10,
        rating_after=value,
        elo_before=1500,
        elo_after=1500,
    )
    return made


def test_bot_page_charts_its_rating_history(ladder: Ladder) -> None:
    bot = BotFactory(name="charted", game="brexit")
    version = BotVersionFactory(bot=bot)
    for position, value in enumerate((1500.0, 1540.0, 1525.0), start=1):
        rated(version, position, value, ladder=ladder)
    # Rated in a season too, less often: the chart is of the ladder, and says so.
    season = Season.objects.create(name="Winter", game="brexit", seats=4, state="running")
    rated(version, 10, 910.0, season=season)
    html = Client().get(f"/bots/{bot.pk}/").content.decode()
    chart = html.split('<figure class="chart-figure">')[1].split("</figure>")[0]
    assert '<svg class="chart"' in chart and "<title>" in chart and ": 1540</title>" in chart
    assert "910" not in chart  # the season's point is on another scale: not in this line
    # Its axes: two lines, the rating's ticks (lowest, middle, highest) and both axes' titles.
    assert chart.count('class="axis"') == 2
    ticks = re.findall(r'class="tick" text-anchor="end">(\d+)</text>', chart)
    assert ticks[:3] == ["1500", "1520", "1540"]
    assert ">Rating</text>" in chart and "3 rated matches, oldest to newest" in chart
    # Which ladder: named in the caption, linked to its page, and in the image's label.
    caption = re.search(r"<figcaption>(.*)</figcaption>", chart)
    assert caption is not None
    assert caption.group(1) == (
        f'Rating after each rated match in ladder <a href="/ladders/{ladder.pk}/">brexit four</a>'
    )
    assert 'aria-label="rating over time in ladder brexit four"' in chart


def test_a_bot_page_says_about_how_many_more_games_until_its_rating_is_settled() -> None:
    ladder = Ladder.objects.create(name="brexit three", game="brexit", seats=3)
    for n in range(4):  # the placed field: deviations around 80
        RatingFactory(ladder=ladder, skill=Skill(sigma=(78 + n) / ELO_PER_MU, games=40))
    settled = BotVersionFactory(bot__name="steady", bot__game="brexit")
    RatingFactory(
        ladder=ladder,
        player=f"v:{settled.pk}",
        bot_version=settled,
        skill=Skill(sigma=70 / ELO_PER_MU, games=40),
    )
    new = BotVersionFactory(bot__name="fresh", bot__game="brexit")
    RatingFactory(
        ladder=ladder,
        player=f"v:{new.pk}",
        bot_version=new,
        skill=Skill(sigma=200 / ELO_PER_MU, games=3),
    )
    html = Client().get(f"/bots/{settled.bot.pk}/").content.decode()
    assert "brexit three" in html and "settled" in html and "more game" not in html
    html = Client().get(f"/bots/{new.bot.pk}/").content.decode()
    [games] = re.findall(r"about (\d+) more games", html)
    # What the estimate says, played forward as the ladder rates (at least its placement).
    placed = statistics.median([78, 79, 80, 81, 70])  # the cap and the typical opponent
    expected = settling.games_to_settle(
        Skill(sigma=200 / ELO_PER_MU, games=3), seats=3, cap=placed, typical=placed
    )
    assert expected is not None and int(games) == expected >= 5


@pytest.mark.parametrize(
    ("kind", "name", "title"),
    [
        ("season", "Demo season", "Demo season · Brexit: The Real Deal"),
        ("season", "Winter Season 2026", "Winter Season 2026 · Brexit: The Real Deal"),
        ("season", "Winter", "Winter season · Brexit: The Real Deal"),
        ("ladder", "brexit (3 players)", "brexit (3 players) ladder · Brexit: The Real Deal"),
        ("ladder", "The ladder", "The ladder · Brexit: The Real Deal"),
    ],
)
def test_a_competition_is_titled_without_saying_its_kind_twice(
    kind: str, name: str, title: str
) -> None:
    """A season named "X season" was titled "X season season"."""
    if kind == "season":
        pk = Season.objects.create(name=name, game="brexit", seats=3).pk
    else:
        pk = Ladder.objects.create(name=name, game="brexit", seats=3).pk
    html = Client().get(f"/{kind}s/{pk}/").content.decode()
    h1 = re.search(r"<h1>(.*?)</h1>", html)
    assert h1 is not None
    assert re.sub(r"<[^>]+>", "", h1.group(1)) == title
