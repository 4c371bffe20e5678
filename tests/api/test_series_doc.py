"""docs/ab-tests.md's worked example through the API: each request it shows is answered as it
says, and the A/B test's results after 12 pairs won are the JSON it shows."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.api.conftest import Enqueued
from tests.tournaments.test_series import finish, twin_outcome
from tournaments.competition import selectors
from tournaments.competition import series as series_service
from tournaments.competition.models import Series
from tournaments.play.models import Match

DOC = Path(__file__).resolve().parents[2] / "docs" / "ab-tests.md"


def requests() -> list[tuple[str, str, dict[str, Any] | None]]:
    """Each ```http block of the page: method, path, JSON body (None for a GET)."""
    found = []
    for block in re.findall(r"```http\n(.*?)```", DOC.read_text(), re.S):
        head, _, body = block.partition("\n\n")
        method, path = head.splitlines()[0].split()
        found.append((method, path, json.loads(body) if body.strip() else None))
    return found


def shown_results() -> dict[str, Any]:
    [shown] = re.findall(r"```json\n(.*?)```", DOC.read_text(), re.S)
    loaded: dict[str, Any] = json.loads(shown)
    return loaded


@pytest.mark.django_db(transaction=True)
def test_the_worked_example_runs_as_the_page_shows(api: APIClient, enqueued: Enqueued) -> None:
    (post_ab, read, post_plain) = requests()
    assert post_ab[:2] == ("POST", "/api/series/") and read[:2] == ("GET", "/api/series/{id}/")
    answer = api.post(post_ab[1], post_ab[2], format="json")
    assert answer.status_code == 201, answer.json()
    sid = answer.json()["id"]
    series = Series.objects.get(pk=sid)
    won = twin_outcome("builtin:greedy", "builtin:cautious", True)
    # 12 pairs, all won: no bound crossed yet at elo1 = 50 (the page's numbers)
    while len(selectors.pairs(series)) < 12:
        for match in Match.objects.filter(series=series, status="queued"):
            if len(selectors.pairs(series)) < 12:
                finish(match, *won(match))
        series_service.advance(series)
    got = api.get(read[1].format(id=sid)).json()["results"]["test"]
    assert got == shown_results()

    plain = api.post(post_plain[1], post_plain[2], format="json")
    assert plain.status_code == 201, plain.json()
    assert [s["id"] for s in api.get("/api/series/").json()["results"]] == [plain.json()["id"], sid]
    assert api.post(f"/api/series/{sid}/cancel/").json()["state"] == "cancelled"
