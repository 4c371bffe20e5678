"""Diagnostics are the bot owner's: every endpoint, for anonymous, another user, the owner and staff.

Verdict details, stderr, validation errors and an abort's reason are planted as
marker strings; a role may read them exactly when the table below says so, and
everyone still sees the verdict kind and the step.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from games.engine.events import event
from games.engine.platform_events import finished_event, verdict_event
from tests.factories import (
    BotLogFactory,
    BotVersionFactory,
    MatchFactory,
    SeatFactory,
    UserFactory,
    abort,
    flush,
)
from tournaments.play.models import BotVersion

pytestmark = pytest.mark.django_db

TRACE = "Traceback: SECRET-TRACE in act()"
STDERR = "SECRET-STDERR my hand is ..."
VALIDATION = "smoke match, step 4: crash: SECRET-VALIDATION"
REASON = "RuntimeError: SECRET-REASON"
ROLES = ["anonymous", "another user", "owner", "staff"]
READS = {"anonymous": False, "another user": False, "owner": True, "staff": True}


@pytest.fixture
def world(db: None, client_for: Callable[[Any], APIClient]) -> dict[str, Any]:
    """The owner's bot (a rejected and a ready version) in a finished and an aborted match."""
    owner = UserFactory()
    rejected = BotVersionFactory(
        bot__owner=owner, status=BotVersion.Status.REJECTED, validation_error=VALIDATION
    )
    ready = BotVersionFactory(bot=rejected.bot, number=2)
    finished = MatchFactory(created_by=UserFactory(), seed=7)
    SeatFactory(match=finished, number=0, bot_version=ready)
    SeatFactory(match=finished, number=1, bot_version=None, builtin="random")
    events = [
        event("game_started", {"seats": 2}),
        verdict_event(0, "crash", detail=TRACE, elapsed_ms=5, strikes=1, step=1),
        finished_event({"ranks": [2, 1], "scores": [0, 1]}, 7),
    ]
    flush(finished, events)
    BotLogFactory(match=finished, seat=0, version=1, verdict="crash", text=STDERR)
    aborted = MatchFactory()
    SeatFactory(match=aborted, number=0, bot_version=ready)
    SeatFactory(match=aborted, number=1, bot_version=None, builtin="random")
    abort(flush(aborted, [event("game_started", {"seats": 2})]), REASON)
    clients = {
        "anonymous": APIClient(),
        "another user": client_for(UserFactory()),
        "owner": client_for(owner),
        "staff": client_for(UserFactory(is_staff=True)),
    }
    return {
        "bot": rejected.bot,
        "rejected": rejected,
        "finished": finished,
        "aborted": aborted,
        "clients": clients,
    }


def body(client: APIClient, url: str) -> str:
    r = client.get(url)
    assert r.status_code == 200, (url, r.status_code, r.content[:300])
    return json.dumps(r.json())


@pytest.mark.parametrize("role", ROLES)
def test_verdict_details_in_the_events(world: dict[str, Any], role: str) -> None:
    client = world["clients"][role]
    url = f"/api/matches/{world['finished'].pk}/events/"
    for query in ("", "?seat=0", "?seat=1"):
        text = body(client, url + query)
        assert ("SECRET-TRACE" in text) is READS[role], query
        verdict = json.loads(text)["events"][1]
        assert verdict["payload"]["verdict"] == "crash" and verdict["payload"]["step"] == 1


@pytest.mark.parametrize("role", ROLES)
def test_stderr_in_the_logs(world: dict[str, Any], role: str) -> None:
    r = world["clients"][role].get(f"/api/matches/{world['finished'].pk}/logs/")
    if role == "anonymous":
        assert r.status_code == 401
        return
    assert r.status_code == 200
    assert ("SECRET-STDERR" in json.dumps(r.json())) is READS[role]


@pytest.mark.parametrize("role", ROLES)
def test_validation_errors_on_versions(world: dict[str, Any], role: str) -> None:
    client, bot = world["clients"][role], world["bot"]
    detail = client.get(f"/api/bots/{bot.pk}/versions/1/").json()
    assert detail["status"] == "rejected"
    assert (detail["validation_error"] == VALIDATION) is READS[role]
    if not READS[role]:
        assert detail["validation_error"] is None
    assert ("SECRET-VALIDATION" in body(client, f"/api/bots/{bot.pk}/versions/")) is READS[role]


@pytest.mark.parametrize("role", ROLES)
def test_nothing_secret_on_the_bot(world: dict[str, Any], role: str) -> None:
    client, bot = world["clients"][role], world["bot"]
    for url in (f"/api/bots/{bot.pk}/", "/api/bots/"):
        assert "SECRET" not in body(client, url)


@pytest.mark.parametrize("role", ROLES)
def test_abort_reason_on_matches(world: dict[str, Any], role: str) -> None:
    client, aborted = world["clients"][role], world["aborted"]
    detail = client.get(f"/api/matches/{aborted.pk}/").json()
    assert detail["status"] == "aborted"
    assert detail["error"] == (REASON if READS[role] else None)
    assert ("SECRET-REASON" in body(client, "/api/matches/")) is READS[role]
    events = body(client, f"/api/matches/{aborted.pk}/events/")
    assert ("SECRET-REASON" in events) is READS[role]
    assert json.loads(events)["events"][-1]["type"] == "match_aborted"


def test_the_challenger_reads_the_abort_reason(
    world: dict[str, Any], client_for: Callable[[Any], APIClient]
) -> None:
    aborted = world["aborted"]
    aborted.created_by = UserFactory()
    aborted.save()
    assert client_for(aborted.created_by).get(f"/api/matches/{aborted.pk}/").json()["error"] == (
        REASON
    )


@pytest.mark.parametrize("role", ROLES)
def test_no_endpoint_leaks_a_diagnostic(world: dict[str, Any], role: str) -> None:
    """Every read endpoint at once: a marker appears only for the owner and staff."""
    client, bot = world["clients"][role], world["bot"]
    urls = [
        "/api/bots/",
        f"/api/bots/{bot.pk}/",
        f"/api/bots/{bot.pk}/versions/",
        f"/api/bots/{bot.pk}/versions/1/",
        "/api/matches/",
        f"/api/matches/{world['finished'].pk}/",
        f"/api/matches/{world['finished'].pk}/events/",
        f"/api/matches/{world['aborted'].pk}/",
        f"/api/matches/{world['aborted'].pk}/events/",
    ]
    everything = "".join(body(client, url) for url in urls)
    for marker in ("SECRET-TRACE", "SECRET-VALIDATION", "SECRET-REASON"):
        assert (marker in everything) is READS[role], marker


def test_the_admin_shows_the_abort_reason(world: dict[str, Any], client: Any) -> None:
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    r = client.get(f"/admin/tournaments/match/{world['aborted'].pk}/change/")
    assert r.status_code == 200 and "SECRET-REASON" in r.content.decode()
