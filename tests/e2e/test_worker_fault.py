"""A worker killed with SIGKILL mid-match: another worker resumes it, without gaps or duplicates."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from replays import store
from tests.e2e.conftest import Worker, wait_until
from tests.factories import BotVersionFactory, MatchFactory, SeatFactory
from tournaments.play.models import Match
from tournaments.tasks import play_match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e, pytest.mark.faults]

SLOW_BOT = (Path(__file__).parent / "bots" / "slow_bot.py").read_bytes()


def test_a_killed_worker_s_match_is_resumed_and_finishes_once(
    start_worker: Callable[..., Worker],
) -> None:
    match = MatchFactory(game="brexit", seed=11)
    slow = BotVersionFactory(bot__game="brexit", upload=SLOW_BOT)
    SeatFactory(match=match, number=0, bot_version=slow)
    SeatFactory(match=match, number=1, bot_version=None, builtin="random")
    SeatFactory(match=match, number=2, bot_version=None, builtin="random")

    first = start_worker(lease_seconds=3)
    play_match.delay(str(match.id))
    wait_until(
        lambda: Match.objects.get(id=match.id).last_version > 30, 60, "the first events", first
    )
    first.kill()
    killed_at = Match.objects.get(id=match.id)
    assert killed_at.status == Match.Status.RUNNING  # mid-match

    second = start_worker(lease_seconds=3)
    wait_until(
        lambda: Match.objects.get(id=match.id).status == Match.Status.FINISHED,
        120,
        "the resumed match",
        second,
    )

    match.refresh_from_db()
    events = store.read(match.id)
    assert [e.version for e in events] == list(range(1, len(events) + 1))  # gap-free
    assert len({e.event_id for e in events}) == len(events)  # duplicate-free
    assert [e.type for e in events].count("match_finished") == 1  # one result
    assert match.attempts == 2
    assert match.last_version == len(events) > killed_at.last_version
    assert sorted(s.rank for s in match.seats.all()) == sorted(match.outcome["ranks"])
