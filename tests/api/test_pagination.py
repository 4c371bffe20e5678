"""Paginated lists answer absurd limits and offsets with a bounded page or a 400, never a 500."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tournaments.api.pagination import MAX_LIMIT

pytestmark = pytest.mark.django_db

LISTS = ["/api/matches/", "/api/bots/", "/api/ladders/", "/api/seasons/"]
HUGE = "999999999999999999999"


@pytest.mark.parametrize("url", LISTS)
def test_a_huge_limit_is_capped(url: str) -> None:
    response = APIClient().get(url, {"limit": HUGE})
    assert response.status_code == 200, response.content
    assert len(response.json()["results"]) <= MAX_LIMIT


@pytest.mark.parametrize("url", LISTS)
def test_a_huge_offset_is_a_clear_400(url: str) -> None:
    response = APIClient().get(url, {"offset": HUGE})
    assert response.status_code == 400
    assert "offset" in response.json()


def test_a_large_limit_returns_at_most_the_cap() -> None:
    from tests.factories import BotFactory

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
