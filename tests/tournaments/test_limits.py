"""Every match ends and says why: platform limits abort with a reason, and what a match writes is bounded."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games.engine.driver import InProcess
from games.engine.platform_events import BOT_VERDICT, MATCH_ABORTED
from replays import store
from tests.factories import BotVersionFactory, MatchFactory, SeatFactory, UserFactory
from tests.tournaments.conftest import MakeMatch
from tournaments.play import lifecycle, runner
from tournaments.play.models import BotLog, Match

pytestmark = pytest.mark.django_db

# The README's example bot, which never places a card in Brexit, and says so at every decision.
PASSIVE = b"""
def act(observation, legal):
    print("passing")
    if legal["actions"]:
        return legal["actions"][0]
    return {"place": []}
"""

CRASHER = b"""
import sys

def act(observation, legal):
    print("about to crash", file=sys.stderr)
    raise RuntimeError("always")
"""

TALKER = b"""
import random

def start(info):
    print("hello from start")

def act(observation, legal):
    if legal["actions"]:
        return random.choice(legal["actions"])
    return {"place": []}

def end(outcome):
    print("goodbye, ranks", outcome["ranks"])
"""


def match_of(*uploads: bytes, builtins: int = 0, game: str = "brexit", seed: int = 3) -> Match:
    match = MatchFactory(game=game, seed=seed)
    for number, source in enumerate(uploads):
        version = BotVersionFactory(bot__game=game, upload=source)
        SeatFactory(match=match, number=number, bot_version=version)
    for number in range(len(uploads), len(uploads) + builtins):
        SeatFactory(match=match, number=number, bot_version=None, builtin="random")
    return match


def assert_aborted_with(match: Match, *words: str) -> str:
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED and match.finished_at is not None
    assert match.error and "Traceback" not in match.error
    for word in words:
        assert word in match.error, match.error
    last = store.read(match.id)[-1]
    assert (last.type, last.payload) == (MATCH_ABORTED, {"reason": match.error})
    return match.error


def test_the_step_limit_aborts_a_match_with_a_reason(builtin_match: MakeMatch, settings) -> None:  # type: ignore[no-untyped-def]
    settings.MATCH_MAX_STEPS = 5
    match = builtin_match()
    assert runner.run_match(match.id) is runner.RunResult.ABORTED
    reason = assert_aborted_with(match, "Stopped by the platform", "5 decisions", "no result")
    assert reason.endswith(".")


def test_the_reason_is_served_with_the_match(builtin_match: MakeMatch, settings) -> None:  # type: ignore[no-untyped-def]
    """Its creator, its seats' owners and staff see why it has no result; others only that."""
    from django.contrib.auth.models import User
    from rest_framework.test import APIClient

    settings.MATCH_MAX_STEPS = 5
    creator: Any = UserFactory()
    match = builtin_match(created_by=creator)
    runner.run_match(match.id)
    match.refresh_from_db()
    staff_user = User.objects.create_user("staff-reader", is_staff=True)
    for reader_user in (creator, staff_user):
        reader = APIClient()
        reader.force_authenticate(user=reader_user)
        body = reader.get(f"/api/matches/{match.id}/").json()
        assert (body["status"], body["outcome"], body["error"]) == ("aborted", None, match.error)
        assert "5 decisions" in body["error"]
    anyone = APIClient().get(f"/api/matches/{match.id}/").json()
    assert (anyone["status"], anyone["outcome"], anyone["error"]) == ("aborted", None, None)


def test_the_time_limit_aborts_a_match_with_a_reason(builtin_match: MakeMatch, settings) -> None:  # type: ignore[no-untyped-def]
    settings.MATCH_MAX_SECONDS = 0.0
    match = builtin_match()
    assert runner.run_match(match.id) is runner.RunResult.ABORTED
    assert_aborted_with(match, "Stopped by the platform", "0 seconds", "no result")


def test_a_match_whose_workers_keep_dying_ends_with_a_reason(builtin_match: MakeMatch) -> None:
    """Each worker that died left the match running with an expired lease; the next one stops."""
    match = builtin_match()
    long_ago = timezone.now() - timedelta(minutes=5)
    for n in range(runner.MAX_ATTEMPTS):
        assert lifecycle.do_claim(match.id, f"worker-{n}")
        Match.objects.filter(id=match.id).update(lease_expires_at=long_ago)  # it died
    assert runner.run_match(match.id) is runner.RunResult.ABORTED
    assert_aborted_with(match, f"{runner.MAX_ATTEMPTS} workers started this match", "no result")


def test_a_platform_fault_aborts_with_a_sentence_not_a_raw_error(
    builtin_match: MakeMatch, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A built-in bot that plays an illegal action is the platform's fault, not a bot owner's."""

    def broken(state: Any, seat: int, rng: Any) -> Any:
        return {"no such": "action"}

    monkeypatch.setattr(runner, "player_for", lambda match, seat, seats: InProcess(broken))
    match = builtin_match()
    assert runner.run_match(match.id) is runner.RunResult.ABORTED
    reason = assert_aborted_with(match, "The platform failed", "no result")
    assert reason.startswith("The platform failed while playing this match (RuntimeError)")


def test_passive_bots_stopped_by_a_small_cap_write_a_bounded_match(settings) -> None:  # type: ignore[no-untyped-def]
    """Three passive uploads (the report that held a worker 9.5 minutes), under a cap of 30."""
    settings.MATCH_MAX_STEPS = 30
    match = match_of(PASSIVE, PASSIVE, PASSIVE)
    assert runner.run_match(match.id) is runner.RunResult.ABORTED
    assert_aborted_with(match, "30 decisions")
    events = store.read(match.id)
    verdicts = [e for e in events if e.type == BOT_VERDICT]
    assert 0 < len(verdicts) <= 30 * 3  # at most one per seat and decision
    assert BotLog.objects.filter(match=match).count() <= len(verdicts)


def test_a_disqualified_seat_s_default_moves_write_no_row_each() -> None:
    match = match_of(CRASHER, builtins=2)
    assert runner.run_match(match.id) is runner.RunResult.FINISHED
    match.refresh_from_db()
    seat = match.seats.get(number=0)
    assert seat.disqualified and seat.strikes == 3
    assert seat.verdicts["disqualified"] > 1  # it went on playing its default moves...
    verdicts = [e.payload["verdict"] for e in store.read(match.id) if e.type == BOT_VERDICT]
    assert verdicts == ["crash", "crash", "crash", "disqualified"]  # ...written once
    logs = list(BotLog.objects.filter(match=match, seat=0).order_by("version"))
    assert len(logs) == 3 and all("about to crash" in log.text for log in logs)


def test_print_in_start_and_end_reaches_the_owner_s_log() -> None:
    match = match_of(TALKER, builtins=2)
    assert runner.run_match(match.id) is runner.RunResult.FINISHED
    match.refresh_from_db()
    assert match.outcome is not None
    logs = list(BotLog.objects.filter(match=match, seat=0).order_by("version"))
    assert [log.text for log in logs] == [
        "hello from start\n",
        f"goodbye, ranks {match.outcome['ranks']}\n",
    ]
    assert logs[0].version < logs[1].version == match.last_version - 1


def test_passive_bots_end_by_the_round_limit_on_the_platform() -> None:
    """B-31: three passive uploads finish a normal game after max_rounds, ranked, not aborted."""
    match = match_of(PASSIVE, PASSIVE, PASSIVE)
    match.options = {"max_rounds": 4}
    match.save(update_fields=["options"])
    assert runner.run_match(match.id) is runner.RunResult.FINISHED
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and not match.error
    assert match.outcome is not None and match.outcome["detail"]["reason"] == "round_limit"
    assert [s.rank for s in match.seats.all()] == [1, 1, 1]  # nobody ever won a deal
    ended = [e for e in store.read(match.id) if e.type == "game_ended"]
    assert len(ended) == 1 and ended[0].payload["reason"] == "round_limit"
    assert max(e.payload.get("round", 0) for e in store.read(match.id)) <= 4
