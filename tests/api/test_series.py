"""/api/series/: start a series or an A/B test, list yours, read one, cancel it. A series is its
owner's and staff's (404 to anyone else, 401 without a login); its matches follow the matches'
own rules (a deal's seed stays hidden until every match of the deal is over)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.api.conftest import Enqueued
from tests.factories import BotFactory, BotVersionFactory, finish, outcome_of
from tournaments.competition.models import Series
from tournaments.play.models import BotVersion, Match

PLAIN = {
    "name": "greedy against the field",
    "game": "brexit",
    "players": [{"builtin": "greedy"}, {"builtin": "random"}, {"builtin": "bold"}],
    "deals": 4,
}
AB: dict[str, Any] = {
    "game": "brexit",
    "test": {
        "candidate": {"builtin": "greedy"},
        "baseline": {"builtin": "cautious"},
        "field": [{"builtin": "random"}],
        "elo0": 0,
        "elo1": 100,
        "max_games": 10,
    },
}


@pytest.mark.django_db
def test_a_series_is_started_listed_read_and_cancelled_by_its_owner(
    api: APIClient, enqueued: Enqueued
) -> None:
    created = api.post("/api/series/", PLAIN, format="json")
    assert created.status_code == 201, created.json()
    body = created.json()
    assert (body["state"], body["seats"], body["deals"], body["deals_started"]) == (
        "running",
        3,
        4,
        2,
    )
    assert body["players"] == ["builtin:greedy", "builtin:random", "builtin:bold"]
    assert len(body["matches"]) == 6 and {m["status"] for m in body["matches"]} == {"queued"}
    assert body["results"]["games"] == 0 and body["results"]["test"] is None

    listed = api.get("/api/series/").json()
    assert [s["id"] for s in listed["results"]] == [body["id"]]

    read = api.get(f"/api/series/{body['id']}/").json()
    assert read["id"] == body["id"] and read["name"] == "greedy against the field"

    cancelled = api.post(f"/api/series/{body['id']}/cancel/")
    assert cancelled.status_code == 200
    assert cancelled.json()["state"] == "cancelled"
    again = api.post(f"/api/series/{body['id']}/cancel/")
    assert again.status_code == 400 and "not running" in again.json()["state"][0]


@pytest.mark.django_db
def test_an_ab_test_is_started_with_its_parameters_stored(
    api: APIClient, enqueued: Enqueued
) -> None:
    body = api.post("/api/series/", AB, format="json").json()
    assert body["test"] == {
        "candidate": "builtin:greedy",
        "baseline": "builtin:cautious",
        "field": ["builtin:random"],
        "elo0": 0.0,
        "elo1": 100.0,
        "alpha": 0.05,
        "beta": 0.05,
        "max_games": 10,
    }
    test = body["results"]["test"]
    assert (test["pairs"], test["llr"], test["verdict"]) == (0, [], "continue")
    assert len(body["matches"]) == 4  # two pairs in flight


@pytest.mark.django_db
def test_a_series_is_its_owners_and_staffs_only(
    api: APIClient, api_other: APIClient, api_staff: APIClient, anon: APIClient, enqueued: Enqueued
) -> None:
    sid = api.post("/api/series/", PLAIN, format="json").json()["id"]
    assert api_other.get(f"/api/series/{sid}/").status_code == 404
    assert api_other.post(f"/api/series/{sid}/cancel/").status_code == 404
    assert api_other.get("/api/series/").json()["results"] == []
    assert anon.get(f"/api/series/{sid}/").status_code == 401
    assert anon.get("/api/series/").status_code == 401
    assert anon.post("/api/series/", PLAIN, format="json").status_code == 401
    assert api_staff.get(f"/api/series/{sid}/").status_code == 200
    assert Series.objects.get(pk=sid).state == "running"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("change", "field", "says"),
    [
        ({"game": "chess"}, "game", "not a valid choice"),
        ({"deals": 0}, "deals", "greater than or equal to 1"),
        ({"players": []}, "players", "give the players"),
        ({"players": [{"builtin": "greedy"}]}, "players", "2 to 5 seats"),
        ({"players": [{"builtin": "greedy"}, {"builtin": "greedy"}]}, "players", "one seat only"),
        ({"players": [{"human": True}, {"builtin": "greedy"}]}, "players", "bots only"),
        ({"options": {"no_such_option": 1}}, "options", ""),
    ],
)
def test_a_bad_series_is_a_400_that_says_why(
    api: APIClient, enqueued: Enqueued, change: dict[str, Any], field: str, says: str
) -> None:
    answer = api.post("/api/series/", {**PLAIN, **change}, format="json")
    assert answer.status_code == 400
    messages = answer.json()[field]
    assert says in str(messages)
    assert not Series.objects.exists() and not Match.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"elo1": -10}, "elo0 (0.0) must be below elo1"),
        ({"alpha": 0.6, "beta": 0.6}, "alpha + beta < 1"),
        ({"baseline": {"builtin": "greedy"}}, "must differ"),
        ({"field": [{"builtin": "random"}] * 5}, "2 to 5 seats"),
    ],
)
def test_a_bad_ab_test_is_a_400_that_says_why(
    api: APIClient, enqueued: Enqueued, change: dict[str, Any], says: str
) -> None:
    answer = api.post("/api/series/", {**AB, "test": {**AB["test"], **change}}, format="json")
    assert answer.status_code == 400
    assert says in str(answer.json()["test"])


@pytest.mark.django_db
def test_another_accounts_private_version_cannot_be_played(
    api: APIClient, other: Any, enqueued: Enqueued
) -> None:
    private: BotVersion = BotVersionFactory(  # type: ignore[assignment]
        bot=BotFactory(owner=other, is_public=False), status=BotVersion.Status.READY
    )
    public: BotVersion = BotVersionFactory(  # type: ignore[assignment]
        bot=BotFactory(owner=other, is_public=True), status=BotVersion.Status.READY
    )
    players = [{"bot_version": private.pk}, {"builtin": "random"}]
    refused = api.post("/api/series/", {**PLAIN, "players": players}, format="json")
    assert refused.status_code == 400 and "unknown bot version" in str(refused.json()["players"])
    players = [{"bot_version": public.pk}, {"builtin": "random"}]
    accepted = api.post("/api/series/", {**PLAIN, "players": players}, format="json")
    assert accepted.status_code == 201
    assert accepted.json()["players"] == [f"v:{public.pk}", "builtin:random"]


@pytest.mark.django_db(transaction=True)
def test_a_series_matchs_seed_opens_once_its_whole_deal_is_over(
    api: APIClient, enqueued: Enqueued
) -> None:
    body = api.post("/api/series/", {**PLAIN, "deals": 1}, format="json").json()
    first, *rest = (Match.objects.get(pk=m["id"]) for m in body["matches"])
    outcome = outcome_of([1, 2, 3], [3.0, 2.0, 1.0])
    for match in [first, *rest[:-1]]:
        finish(match, outcome)
    shown = api.get(f"/api/matches/{first.pk}/").json()
    assert shown["status"] == "finished" and shown["seed"] is None
    listed = {m["id"]: m for m in api.get("/api/matches/").json()["results"]}
    assert listed[str(first.pk)]["seed"] is None
    finish(rest[-1], outcome)
    assert api.get(f"/api/matches/{first.pk}/").json()["seed"] == first.seed
    listed = {m["id"]: m for m in api.get("/api/matches/").json()["results"]}
    assert listed[str(first.pk)]["seed"] == first.seed
    results = api.get(f"/api/series/{body['id']}/").json()["results"]
    assert results["games"] == 3
    assert {p["player"]: p["games"] for p in results["players"]} == {
        "builtin:greedy": 3,
        "builtin:random": 3,
        "builtin:bold": 3,
    }
