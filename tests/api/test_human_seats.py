"""A person's seat through the API: challenge, wait, act, the clock (tournaments/play/lifecycle/
people.py; the clock's side in tournaments/play/reaper.py).

The runner is called in-process where a worker would run it (the enqueued fixture records
what would be sent); tests/e2e/test_human_worker.py does the same with a real worker.
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from games.engine.match import replay
from games.engine.platform_events import BOT_VERDICT, MATCH_ABORTED, game_events
from games.engine.registry import get
from games.engine.rng import step_rng
from replays import store
from tests.api.conftest import Enqueued
from tournaments.play import reaper, runner, services
from tournaments.play.models import Match

pytestmark = pytest.mark.django_db


def human_match(api: APIClient, game: str = "brexit", **extra: Any) -> Match:
    seats = extra.pop("seats", [{"human": True}, {"builtin": "random"}, {"builtin": "greedy"}])
    body = {"game": game, "seats": seats, "seed": 5, **extra}
    r = api.post("/api/matches/", body, format="json")
    assert r.status_code == 201, r.content
    return Match.objects.get(pk=r.data["id"])


def play_bots(match: Match) -> Match:
    """What a worker does with the queued match: play the bots until people must act."""
    runner.run_match(uuid.UUID(str(match.pk)))
    match.refresh_from_db()
    return match


def some_action(legal: dict[str, Any]) -> dict[str, Any]:
    """A legal answer: the first enumerated action, the smallest bid, or no placement."""
    if legal["actions"]:
        return dict(legal["actions"][0])
    if "bid" in (legal["space"] or {}):
        return {"bid": legal["space"]["bid"]["min"]}
    return {"place": []}


@pytest.fixture
def commits(django_capture_on_commit_callbacks: Any) -> Any:
    """Run on-commit callbacks (the match queued for the bots) as a real commit would."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def asked(api: APIClient, match: Match) -> list[dict[str, Any]]:
    r = api.get(f"/api/matches/{match.pk}/actions/")
    assert r.status_code == 200, r.content
    return list(r.data)


def test_a_human_seat_makes_an_unrated_match_that_waits_without_a_worker(
    api: APIClient, user: Any, enqueued: Enqueued
) -> None:
    match = human_match(api)
    seat = match.seats.get(number=0)
    assert (seat.player, seat.bot_version, seat.builtin, match.rated) == (user, None, "", False)
    match = play_bots(match)
    assert match.status == "waiting" and match.waiting_for == [0]
    assert match.lease_owner == "" and match.lease_expires_at is None  # no worker holds it
    assert match.suspended_at is not None  # the scheduler's gap before a head start
    assert match.waiting_step == match.last_version == store.current_version(match.pk)
    detail = api.get(f"/api/matches/{match.pk}/").data
    assert detail["status"] == "waiting" and detail["waiting_for"] == [0]
    assert detail["seats"][0]["human"] is True
    assert detail["seats"][0]["label"] == f"human:{user.username}"
    [decision] = asked(api, match)
    assert decision["waiting"] and decision["step"] == match.waiting_step
    assert decision["legal"]["kind"] == "placement"
    assert decision["observation"]["hand"]  # the seat's own cards: the person's view


def test_an_action_is_stored_with_its_verdict_and_queues_the_bots(
    api: APIClient, enqueued: Enqueued, commits: Any
) -> None:
    match = play_bots(human_match(api))
    before = match.last_version
    [decision] = asked(api, match)
    Match.objects.filter(pk=match.pk).update(priority=Match.Priority.PLAY)  # as after a default
    with commits():
        r = api.post(
            f"/api/matches/{match.pk}/actions/",
            {"action": some_action(decision["legal"]), "step": decision["step"]},
            format="json",
        )
    assert r.status_code == 202, r.content
    events = store.read(match.pk, from_version=before + 1)
    assert events[0].type == BOT_VERDICT and events[0].payload["verdict"] == "ok"
    assert events[0].payload["seat"] == 0 and len(events) > 1
    match.refresh_from_db()
    assert match.status == "queued" and enqueued.play_match[-1] == str(match.pk)
    assert match.priority == Match.Priority.PERSON  # a person waits on the bots' reply
    version = match.last_version
    assert play_bots(match).last_version > version


def test_an_illegal_action_is_refused_with_the_engines_reason_and_nothing_stored(
    api: APIClient, enqueued: Enqueued
) -> None:
    match = play_bots(human_match(api))
    before = store.current_version(match.pk)
    url = f"/api/matches/{match.pk}/actions/"
    r = api.post(url, {"action": {"place": [{"card": "NOT_A_CARD", "slot": 0}]}}, format="json")
    assert r.status_code == 400, r.content
    assert "NOT_A_CARD" in r.data["action"][0]
    r = api.post(url, {"action": {"effect": "none"}}, format="json")  # the wrong shape
    assert r.status_code == 400 and "malformed placement action" in r.data["action"][0]
    r = api.post(url, {"action": [1, 2]}, format="json")
    assert r.status_code == 400 and "JSON object" in r.data["action"][0]
    # A card id of a megabyte is named, not echoed whole (as a bot's verdict caps its detail).
    huge = "X" * 1_000_000
    r = api.post(url, {"action": {"place": [{"card": huge, "slot": 0}]}}, format="json")
    assert r.status_code == 400 and "XXXX" in r.data["action"][0]
    assert len(r.content) < 5_000
    assert store.current_version(match.pk) == before
    match.refresh_from_db()
    assert match.status == "waiting" and enqueued.play_match == []


def test_a_second_submission_for_the_same_decision_is_a_conflict(
    api: APIClient, enqueued: Enqueued
) -> None:
    match = play_bots(human_match(api))
    [decision] = asked(api, match)
    body = {"action": {"place": []}, "step": decision["step"]}
    url = f"/api/matches/{match.pk}/actions/"
    assert api.post(url, body, format="json").status_code == 202
    stored = store.current_version(match.pk)
    r = api.post(url, body, format="json")
    assert r.status_code == 409 and "no decision to make now" in r.data["detail"]
    # Even once the bots have played and the seat is asked again, the old decision stays answered.
    match = play_bots(match)
    assert match.status == "waiting" and match.waiting_step != decision["step"]
    stored = store.current_version(match.pk)
    r = api.post(url, body, format="json")
    assert r.status_code == 409 and "already answered" in r.data["detail"]
    assert store.current_version(match.pk) == stored


def test_another_user_gets_404_and_only_sees_the_public_view(
    api: APIClient, other: Any, enqueued: Enqueued, client_for: Any
) -> None:
    match = play_bots(human_match(api))
    theirs = client_for(other)
    url = f"/api/matches/{match.pk}/actions/"
    assert theirs.post(url, {"action": {"place": []}}, format="json").status_code == 404
    assert theirs.get(url).status_code == 404
    assert APIClient().post(url, {"action": {"place": []}}, format="json").status_code in (401, 403)
    # The person's own seat view is theirs; another user is refused it, as for a bot's seat.
    events = f"/api/matches/{match.pk}/events/"
    assert api.get(events, {"seat": 0}).status_code == 200
    assert theirs.get(events, {"seat": 0}).status_code == 404
    assert api.get(events).data["view"]["seats"] == [0]
    assert theirs.get(events).data["view"]["seats"] == []
    # Acting for a seat that is not theirs: 404 too, for the person as well.
    r = api.post(url, {"action": {"place": []}, "seat": 1}, format="json")
    assert r.status_code == 404


def test_a_missed_deadline_plays_the_default_action_with_a_timeout_verdict(
    api: APIClient, enqueued: Enqueued
) -> None:
    match = play_bots(human_match(api, human_move_seconds=30))
    assert match.deadline is not None
    assert match.deadline - timezone.now() <= timedelta(seconds=30)
    before = list(enqueued.play_match)
    assert reaper.reap_people() == 0 and enqueued.play_match == before  # not yet
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    step = match.waiting_step
    assert step is not None
    assert reaper.reap_people() == 1 and enqueued.play_match == [*before, str(match.pk)]
    # Nobody moved: the default waits its turn with everyone's work, not ahead of it.
    assert Match.objects.get(pk=match.pk).priority == Match.Priority.PLAY
    # Someone answering now is too late: the default is being played.
    r = api.post(f"/api/matches/{match.pk}/actions/", {"action": {"place": []}}, format="json")
    assert r.status_code == 409
    play_bots(match)
    rules = get("brexit").rules
    stored = [ev.as_engine_event() for ev in store.read(match.pk)]
    state = replay(rules, list(game_events(stored[:step])))
    default = rules.default_action(state, 0)
    expected = rules.decide(state, 0, default, step_rng(match.seed, step))
    verdict = stored[step]
    assert verdict["type"] == BOT_VERDICT
    assert verdict["payload"]["verdict"] == "timeout" and verdict["payload"]["seat"] == 0
    assert "30-second deadline" in verdict["payload"]["detail"]
    assert [ev["payload"] for ev in stored[step + 1 : step + 1 + len(expected)]] == [
        ev["payload"] for ev in expected
    ]
    match.refresh_from_db()
    assert match.status == "waiting" and (match.waiting_step or 0) > step  # the next decision


def test_an_action_past_the_deadline_is_refused_and_the_default_played_at_once(
    api: APIClient, enqueued: Enqueued, commits: Any
) -> None:
    match = play_bots(human_match(api, human_move_seconds=30))
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    stored = store.current_version(match.pk)
    with commits():
        r = api.post(f"/api/matches/{match.pk}/actions/", {"action": {"place": []}}, format="json")
    assert r.status_code == 409 and "deadline for this decision passed" in r.data["detail"]
    assert store.current_version(match.pk) == stored  # nothing of the late action stored
    match.refresh_from_db()
    # Queued for the default at once, without waiting for the reaper.
    assert match.status == "queued" and enqueued.play_match == [str(match.pk)]


def test_a_decision_not_yet_asked_is_a_bad_request_not_a_conflict(
    api: APIClient, enqueued: Enqueued
) -> None:
    match = play_bots(human_match(api))
    url = f"/api/matches/{match.pk}/actions/"
    for step in ((match.waiting_step or 0) + 1, 10**9):
        r = api.post(url, {"action": {"place": []}, "step": step}, format="json")
        assert r.status_code == 400, (step, r.content)
    r = api.post(url, {"action": {"place": []}, "step": 99999999999999999999}, format="json")
    assert r.status_code == 400 and "step" in r.data


def test_a_match_abandoned_for_a_day_ends_aborted_with_its_reason(
    api: APIClient, enqueued: Enqueued
) -> None:
    match = play_bots(human_match(api))
    Match.objects.filter(pk=match.pk).update(
        human_acted_at=timezone.now() - timedelta(days=1, seconds=1)
    )
    assert reaper.reap_people() == 1
    match.refresh_from_db()
    assert match.status == "aborted" and "nobody played seat 0 for a day" in match.error
    last = store.read(match.pk)[-1]
    assert last.type == MATCH_ABORTED and last.payload["reason"] == match.error
    assert (
        api.post(
            f"/api/matches/{match.pk}/actions/", {"action": {"place": []}}, format="json"
        ).status_code
        == 409
    )


def test_challenge_refuses_a_bad_human_seat_or_deadline(api: APIClient, enqueued: Enqueued) -> None:
    r = api.post(
        "/api/matches/",
        {
            "game": "brexit",
            "seats": [{"human": True, "builtin": "random"}, {"builtin": "random"}] * 1
            + [{"builtin": "random"}],
        },
        format="json",
    )
    assert r.status_code == 400 and "exactly one of" in str(r.data["seats"])
    r = api.post(
        "/api/matches/",
        {
            "game": "brexit",
            "seats": [{"human": True}] + [{"builtin": "random"}] * 2,
            "human_move_seconds": 1,
        },
        format="json",
    )
    assert r.status_code == 400 and "between" in str(r.data["human_move_seconds"])


def test_a_brasilis_sealed_bid_waits_for_every_persons_seat(
    api: APIClient, enqueued: Enqueued, commits: Any
) -> None:
    seats = [{"human": True}, {"human": True}, {"builtin": "greedy"}]
    match = play_bots(human_match(api, "brasilis", seats=seats))
    url = f"/api/matches/{match.pk}/actions/"
    sealed = 0
    for _ in range(400):
        if match.status != "waiting" or sealed:
            break  # a whole game through the page: tests/e2e/test_human_browser.py
        waiting = [d for d in asked(api, match) if d["waiting"]]
        if len(waiting) == 2:  # a sealed bid: the first answer leaves the match waiting
            assert {d["legal"]["kind"] for d in waiting} == {"bid"}
            sent = len(enqueued.play_match)
            first, second = waiting
            with commits():
                r = api.post(
                    url,
                    {
                        "action": some_action(first["legal"]),
                        "seat": first["seat"],
                        "step": first["step"],
                    },
                    format="json",
                )
            assert r.status_code == 202 and r.data["status"] == "waiting"
            assert r.data["waiting_for"] == [second["seat"]]
            assert len(enqueued.play_match) == sent  # no worker asked yet
            waiting = [second]
            sealed += 1
        for d in waiting:
            r = api.post(
                url,
                {"action": some_action(d["legal"]), "seat": d["seat"], "step": d["step"]},
                format="json",
            )
            assert r.status_code == 202, r.content
        match = play_bots(match)
    assert sealed == 1


def test_the_documented_requests_work_as_shown(api: APIClient, enqueued: Enqueued) -> None:
    """docs/api.md, "Play a seat yourself": its challenge, then its action at the step asked."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    section = text.split("## Play a seat yourself", 1)[1].split("\n## ", 1)[0]
    challenge, action = (json.loads(body) for body in re.findall(r"-d '([^']*)'", section))
    r = api.post("/api/matches/", challenge, format="json")
    assert r.status_code == 201, r.content
    assert r.data["human_move_seconds"] == 120 and r.data["seats"][0]["human"]
    match = play_bots(Match.objects.get(pk=r.data["id"]))
    [decision] = asked(api, match)
    assert decision["legal"]["kind"] == "placement"
    action["step"] = decision["step"]  # the docs show an example step
    r = api.post(f"/api/matches/{match.pk}/actions/", action, format="json")
    assert r.status_code == 202 and r.data["status"] == "queued", r.content


@pytest.mark.django_db(transaction=True)
def test_two_simultaneous_answers_to_one_decision_one_wins_one_conflicts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The match row's lock orders them: the second sees the decision answered (no sleep)."""
    from django.db import connection

    from tests.factories import UserFactory
    from tournaments.play import dispatch

    monkeypatch.setattr(dispatch, "play_match", lambda *match: None)  # no worker here
    person = UserFactory()
    match = services.create_challenge(
        user=person,
        game="brexit",
        seats=[{"human": True}, {"builtin": "random"}, {"builtin": "random"}],
        seed=2,
    )
    match = play_bots(match)
    barrier = threading.Barrier(2)
    results: list[str] = []

    def answer() -> None:
        try:
            barrier.wait(10)
            services.submit_action(
                user=person, match_id=match.pk, action={"place": []}, step=match.waiting_step
            )
            results.append("ok")
        except services.Conflict:
            results.append("conflict")
        finally:
            connection.close()

    threads = [threading.Thread(target=answer) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(results) == ["conflict", "ok"]
    verdicts = [e for e in store.read(match.pk) if e.type == BOT_VERDICT]
    assert len(verdicts) == 1  # one answer stored
