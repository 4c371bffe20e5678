"""Paginated lists answer absurd limits and offsets with a bounded page or a 400, never a 500.

Every list the schema says takes ``limit`` and ``offset`` is tried, so a new list is covered
the day it is added (``?limit=9223372036854775808`` once gave 500 on every list).
"""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.factories import BotFactory, BotVersionFactory, MatchFactory, SeatFactory
from tournaments.competition.models import Ladder, Season
from tournaments.site.api.pagination import MAX_LIMIT

pytestmark = pytest.mark.django_db

ABSURD = [
    "9223372036854775808",  # one past bigint
    "999999999999999999999",
    "-1",
    "-9223372036854775809",
    "abc",
    "1e3",
    "",
    "0x10",
    "١٢",  # Arabic-Indic digits: int() reads them
]


def paginated_lists() -> list[str]:
    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    return sorted(
        path
        for path, ops in schema.json()["paths"].items()
        # Offsets, or cursors where offsets would scan (the match list: tournaments/play/keyset.py).
        if {p["name"] for p in ops.get("get", {}).get("parameters", [])} & {"offset", "cursor"}
        and "limit" in {p["name"] for p in ops["get"]["parameters"]}
    )


@pytest.fixture
def urls(user: Any) -> list[str]:
    bot = BotFactory(owner=user, is_public=True)
    BotVersionFactory(bot=bot)
    match = MatchFactory()
    SeatFactory(match=match, number=0)
    ids = {
        "{id}": bot.pk,
        "{bot_id}": bot.pk,
        "{match_id}": match.pk,
        "{ladder_id}": Ladder.objects.create(name="l", game="brexit", seats=3).pk,
        "{season_id}": Season.objects.create(name="s", game="brexit", seats=3).pk,
    }
    found = []
    for path in paginated_lists():
        for key, value in ids.items():
            path = path.replace(key, str(value))
        assert "{" not in path, path
        found.append(path)
    return found


def test_every_list_is_paginated(urls: list[str]) -> None:
    assert {"/api/matches/", "/api/bots/", "/api/ladders/", "/api/seasons/"} <= set(urls)
    assert any(u.endswith("/versions/") for u in urls) and any(u.endswith("/logs/") for u in urls)


@pytest.mark.parametrize("value", ABSURD)
def test_absurd_limits_and_offsets_are_a_page_or_a_clear_400(
    api: APIClient, urls: list[str], value: str
) -> None:
    wrong = []
    for url in urls:
        for name in ("limit", "offset"):
            r = api.get(url, {name: value})
            if r.status_code == 400 and name in r.json():
                continue
            if r.status_code != 200 or len(r.json()["results"]) > MAX_LIMIT:
                wrong.append((url, name, value, r.status_code))
    assert wrong == []


def test_a_huge_offset_is_a_clear_400(api: APIClient, urls: list[str]) -> None:
    for url in urls:
        r = api.get(url, {"offset": "9223372036854775808"})
        assert r.status_code == 400, url
        assert "offset" in r.json()


def test_a_large_limit_returns_at_most_the_cap() -> None:
    BotFactory.create_batch(MAX_LIMIT + 3, is_public=True)
    body = APIClient().get("/api/bots/", {"limit": 100000}).json()
    assert body["count"] == MAX_LIMIT + 3 and len(body["results"]) == MAX_LIMIT


def test_a_limit_that_is_not_a_whole_number_above_0_gives_the_default_page() -> None:
    """docs/api.md: -1, 0 or abc are ignored (pages of 50), not a 400 and not a 500."""
    from tests.factories import BotFactory

    BotFactory.create_batch(51, is_public=True)
    for limit in ("-1", "0", "abc", "1.5"):
        response = APIClient().get("/api/bots/", {"limit": limit})
        assert response.status_code == 200, (limit, response.content)
        body = response.json()
        assert len(body["results"]) == 50 and "limit=50" in body["next"], limit
