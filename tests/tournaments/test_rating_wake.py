"""Ratings are woken by the event store's feed, not by whoever played the match."""

from __future__ import annotations

from typing import Any

import pytest

from tests.factories import MatchFactory, SeatFactory, abort
from tournaments import tasks
from tournaments.play import runner

pytestmark = pytest.mark.django_db


def finished_match() -> Any:
    match = MatchFactory(game="brexit", seed=4)
    for number in range(3):
        SeatFactory(match=match, number=number, bot_version=None, builtin="random")
    return match


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ratings updates sent, instead of sending them."""
    out: list[str] = []
    monkeypatch.setattr(tasks.update_ratings, "delay", lambda: out.append("ratings"))
    return out


def test_a_stored_result_wakes_the_ratings_once_it_commits(
    sent: list[str], django_capture_on_commit_callbacks: Any
) -> None:
    match = finished_match()
    with django_capture_on_commit_callbacks(execute=True):
        assert runner.run_match(match.id) is runner.RunResult.FINISHED
    assert sent == ["ratings"]  # one wake-up: the flushes before the result sent none


def test_nothing_is_sent_for_events_that_end_no_match(
    sent: list[str], django_capture_on_commit_callbacks: Any
) -> None:
    match = finished_match()
    with django_capture_on_commit_callbacks(execute=True):
        abort(match, "stop")  # its stream ends with match_aborted
    assert sent == []
