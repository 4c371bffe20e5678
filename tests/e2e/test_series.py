"""End to end with a real worker and beat: a series and an A/B test of built-in bots, started
through the API, are played by the worker, moved on by beat's series tick, and end on their own:
the series once its deals are played, the test at a bound or its cap."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tests import own_cache
from tests.e2e.conftest import Worker, wait_until
from tests.e2e.test_challenge import sign_up
from tests.support.processes import Processes, platform_env
from tournaments.competition.models import Series
from tournaments.play.models import Match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]

SHORT = {"max_rounds": 6}
"""Brexit games of a few seconds."""


def start(client: APIClient, body: dict[str, object]) -> int:
    r = client.post("/api/series/", body, format="json")
    assert r.status_code == 201, r.content
    return int(r.json()["id"])


@pytest.mark.timeout(600)
def test_a_series_and_an_ab_test_run_to_their_end_through_the_workers(
    start_worker: Callable[..., Worker], processes: Processes
) -> None:
    own_cache.clear()
    worker = start_worker()
    # Beat's series tick every 2 s instead of 5 (settings/test.py: TEST_BEAT_SECONDS).
    beat = processes.beat(platform_env(60, TEST_BEAT_SECONDS="2"))
    dana = sign_up("dana")
    plain = start(
        dana,
        {
            "game": "brexit",
            "players": [{"builtin": "greedy"}, {"builtin": "random"}],
            "deals": 2,
            "options": SHORT,
        },
    )
    ab = start(
        dana,
        {
            "game": "brexit",
            "options": SHORT,
            "test": {
                "candidate": {"builtin": "greedy"},
                "baseline": {"builtin": "random"},
                "field": [{"builtin": "cautious"}],
                "elo0": 0,
                "elo1": 300,
                "alpha": 0.1,
                "beta": 0.1,
                "max_games": 6,
            },
        },
    )
    wait_until(
        lambda: not Series.objects.filter(pk__in=[plain, ab], state="running").exists(),
        480,
        "the series and the A/B test to end",
        worker,
        beat,
    )
    series = dana.get(f"/api/series/{plain}/").json()
    assert series["state"] == "finished"
    assert [m["status"] for m in series["matches"]] == ["finished"] * 4
    assert series["results"]["games"] == 4
    assert {p["player"] for p in series["results"]["players"]} == {
        "builtin:greedy",
        "builtin:random",
    }

    test = dana.get(f"/api/series/{ab}/").json()
    assert test["state"] == "finished" and test["verdict"] in {"H0", "H1", "cap"}
    found = test["results"]["test"]
    assert found["verdict"] == test["verdict"] and 1 <= found["pairs"] <= 6
    assert len(found["llr"]) == found["pairs"]
    last = found["llr"][-1]
    if test["verdict"] == "H1":
        assert last >= found["upper"]
    elif test["verdict"] == "H0":
        assert last <= found["lower"]
    else:
        assert found["pairs"] == 6 and found["lower"] < last < found["upper"]
    wait_until(
        lambda: not Match.objects.filter(series_id=ab, status__in=["queued", "running"]).exists(),
        120,
        "the test's last matches to end or be cancelled",
        worker,
    )

    page = Client()
    page.force_login(Series.objects.get(pk=ab).owner)
    html = page.get(f"/series/{ab}/").content.decode()
    assert 'class="bound"' in html and "<polyline points=" in html
