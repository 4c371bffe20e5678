"""End to end: two users upload bots over the API, one challenges the other, a real worker plays it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from replays import store
from tests import own_cache
from tests.e2e.conftest import Worker, wait_until
from tournaments.play.models import BotVersion, Match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]

BOTS = Path(__file__).parent / "bots"


def sign_up(username: str) -> APIClient:
    client = APIClient()
    r = client.post(
        "/api/accounts/", {"username": username, "password": "a-long-pass-phrase-9"}, format="json"
    )
    assert r.status_code == 201, r.content
    client.credentials(HTTP_AUTHORIZATION=f"Token {r.data['token']}")
    return client


def upload(client: APIClient, name: str, source: Path) -> dict[str, Any]:
    bot = client.post("/api/bots/", {"name": name, "game": "brexit"}, format="json")
    assert bot.status_code == 201, bot.content
    version = client.post(
        f"/api/bots/{bot.data['id']}/versions/",
        {"filename": "bot.py", "source": source.read_text()},
        format="json",
    )
    assert version.status_code == 201, version.content
    return dict(version.data)


def test_two_users_upload_challenge_and_read_their_own_logs(
    start_worker: Callable[..., Worker],
) -> None:
    own_cache.clear()  # throttle counters of earlier runs
    worker = start_worker()
    alice, bob = sign_up("alice"), sign_up("bob")
    alice_version = upload(alice, "alice-bot", BOTS / "chatty_bot.py")
    bob_version = upload(bob, "bob-bot", BOTS / "chatty_bot.py")
    wait_until(
        lambda: set(BotVersion.objects.values_list("status", flat=True)) == {"ready"},
        90,
        "both versions to pass validation",
        worker,
    )

    r = alice.post(
        "/api/matches/",
        {
            "game": "brexit",
            "seats": [
                {"bot_version": alice_version["id"]},
                {"bot_version": bob_version["id"]},
                {"builtin": "random"},
            ],
        },
        format="json",
    )
    assert r.status_code == 201, r.content
    match_id = r.data["id"]
    wait_until(
        lambda: Match.objects.get(id=match_id).status == "finished", 120, "the match", worker
    )

    detail = bob.get(f"/api/matches/{match_id}/").data
    assert detail["status"] == "finished"
    assert sorted(seat["rank"] for seat in detail["seats"]) == sorted(detail["outcome"]["ranks"])
    events = store.read(match_id)
    assert events and events[-1].type == "match_finished"
    assert {e.payload["seat"] for e in events if e.type == "bot_verdict"} == {0, 1}

    alice_logs = alice.get(f"/api/matches/{match_id}/logs/").json()
    bob_logs = bob.get(f"/api/matches/{match_id}/logs/").json()
    rows = lambda body: body["results"] if isinstance(body, dict) else body  # noqa: E731
    assert rows(alice_logs) and {row["seat"] for row in rows(alice_logs)} == {0}
    assert rows(bob_logs) and {row["seat"] for row in rows(bob_logs)} == {1}
    assert all("owner-only-trace" in row["text"] for row in rows(alice_logs))


def test_a_match_of_builtin_bots_is_running_while_a_worker_plays_it(
    start_worker: Callable[..., Worker],
) -> None:
    """Built-in bots take no sandbox, and a match of them once took no lease either: it showed
    ``queued`` while played and 44 of 99 ended with ``started_at == finished_at``. The scheduler
    claims every match it hands a worker, built-in or not: this proves it on a real one."""
    own_cache.clear()
    carol = sign_up("carol")
    worker = start_worker()  # first: the match must be watched from before it is taken
    # A searching seat (40 ms of CPU a decision, a third of the decisions): a Bra$ilis game of
    # about three seconds, long enough to be seen playing. Three searching seats made it nine,
    # the test's whole cost (2026-12-04).
    r = carol.post(
        "/api/matches/",
        {"game": "brasilis", "seats": [{"builtin": "search"}] + [{"builtin": "random"}] * 2},
        format="json",
    )
    assert r.status_code == 201, r.content
    match_id = r.data["id"]
    seen: list[tuple[str, bool]] = []

    def running() -> bool:
        match = Match.objects.get(id=match_id)
        seen.append((match.status, match.finished_at is None))
        return match.status != Match.Status.QUEUED

    wait_until(running, 90, "the worker to take the match", worker)
    # The first status after queued is running, with a start and no end yet: not finished.
    assert seen[-1] == (Match.Status.RUNNING, True), seen
    wait_until(
        lambda: Match.objects.get(id=match_id).status == Match.Status.FINISHED,
        120,
        "the match to finish",
        worker,
    )
    match = Match.objects.get(id=match_id)
    assert match.started_at is not None and match.finished_at is not None
    assert match.created_at <= match.started_at < match.finished_at
    assert (match.lease_owner, match.lease_expires_at) == ("", None)
