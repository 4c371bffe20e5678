"""A deeply nested JSON body is a 400 with a message on every endpoint that takes JSON."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tournaments.site.api.parsers import MAX_DEPTH, depth

ENDPOINTS = ["/api/accounts/", "/api/accounts/token/", "/api/bots/", "/api/matches/"]


def test_depth_counts_lists_and_objects() -> None:
    assert depth(3) == 0 and depth([]) == 1 and depth({"a": [1, {"b": []}]}) == 4


@pytest.mark.django_db
@pytest.mark.parametrize("url", ENDPOINTS)
@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 100_000])
def test_deep_json_is_refused_with_a_message(url: str, levels: int, api: APIClient) -> None:
    body = "[" * levels + "]" * levels
    r = api.post(url, body, content_type="application/json")
    assert r.status_code == 400, r.content
    assert f"nested more than {MAX_DEPTH} levels" in r.json()["detail"]
