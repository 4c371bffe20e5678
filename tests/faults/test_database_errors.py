"""An operational database error is not the match's fault: never an abort (the task's retry is
seen by tests/faults/test_postgres_restart.py, with real workers)."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from replays import store
from tests.factories import MatchFactory, SeatFactory
from tournaments import outages, runner
from tournaments.models import Match

pytestmark = [pytest.mark.faults, pytest.mark.django_db]


def brasilis_match() -> Match:
    """Built-in bots only: unleased, its events streamed and committed every 256."""
    match = MatchFactory(game="brasilis", seed=7)
    for number in range(3):
        SeatFactory(match=match, number=number, bot_version=None, builtin="random")
    return match


def fail_second_flush(monkeypatch: pytest.MonkeyPatch, error: Exception) -> None:
    """The match's second flush meets ``error`` (its first is stored)."""
    real = runner.DatabaseSink._commit
    calls = []

    def commit(self: runner.DatabaseSink, flush: Any) -> None:
        calls.append(flush)
        if len(calls) == 2:
            self.abort()
            raise error
        real(self, flush)

    monkeypatch.setattr(runner.DatabaseSink, "_commit", commit)


def test_a_flush_that_meets_a_database_outage_leaves_the_match_to_resume(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    match = brasilis_match()
    fail_second_flush(monkeypatch, psycopg.OperationalError("server closed the connection"))
    with pytest.raises(psycopg.OperationalError):
        runner.run_match(match.id)
    match.refresh_from_db()
    assert match.status == Match.Status.QUEUED and match.error == ""
    stored = store.read(match.id)
    assert stored and "match_aborted" not in {e.type for e in stored}

    monkeypatch.undo()
    assert runner.run_match(match.id) is runner.RunResult.FINISHED  # resumed from the first flush
    events = store.read(match.id)
    assert [e.version for e in events] == list(range(1, len(events) + 1))
    assert [e.type for e in events].count("match_finished") == 1


def test_any_other_error_during_a_flush_still_aborts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    match = brasilis_match()
    fail_second_flush(monkeypatch, RuntimeError("a bug"))
    assert runner.run_match(match.id) is runner.RunResult.ABORTED


def test_an_outage_hidden_behind_a_failed_clean_up_is_seen() -> None:
    try:
        try:
            raise psycopg.OperationalError("connection lost")
        except psycopg.OperationalError:
            raise RuntimeError("COPY could not be ended") from None
    except RuntimeError as exc:
        assert not outages.is_database_outage(exc)  # replaced on purpose: not an outage
    try:
        try:
            raise psycopg.OperationalError("connection lost")
        except psycopg.OperationalError:
            raise RuntimeError("rollback failed")  # noqa: B904 - what a clean-up really does
    except RuntimeError as exc:
        assert outages.is_database_outage(exc)
