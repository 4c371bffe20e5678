"""An operational database error is not the match's fault: never an abort (the task's retry is
seen by tests/faults/test_postgres_restart.py, with real workers)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import psycopg
import pytest
from django.utils import timezone

from replays import store
from tests.factories import MatchFactory, SeatFactory, claim
from tests.support.queues import own_queues
from tournaments.play import lifecycle, outages, reaper, runner
from tournaments.play.models import Match

pytestmark = [pytest.mark.faults, pytest.mark.django_db]


def brasilis_match() -> Match:
    """Built-in bots only: unleased, its events streamed and committed every 256."""
    match = MatchFactory(game="brasilis", seed=7)
    for number in range(3):
        SeatFactory(match=match, number=number, bot_version=None, builtin="random")
    return match


def fail_second_flush(monkeypatch: pytest.MonkeyPatch, error: Exception) -> None:
    """The match's second flush meets ``error`` (its first is stored)."""
    real = lifecycle.DatabaseSink._commit
    calls = []

    def commit(self: lifecycle.DatabaseSink, flush: Any) -> None:
        calls.append(flush)
        if len(calls) == 2:
            self.abort()
            raise error
        real(self, flush)

    monkeypatch.setattr(lifecycle.DatabaseSink, "_commit", commit)


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


def leased_brexit_match() -> Match:
    """Built-in bots, but running under an expired lease (a dead worker's): claimed like a
    sandboxed match, each flush one transaction with the lease's heartbeat."""
    match = MatchFactory(game="brexit", seed=5)
    for number in range(3):
        SeatFactory(match=match, number=number, bot_version=None, builtin="random")
    claimed = claim(match, "dead-worker")
    expire_lease(claimed)  # the worker died
    return claimed


def fail_leased_flush(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every flush of a leased match meets the outage."""

    def flush(self: lifecycle.DatabaseSink, flush: Any) -> None:
        raise psycopg.OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(lifecycle.DatabaseSink, "__call__", flush)


def attempts_of(match: Match) -> int:
    match.refresh_from_db()
    return match.attempts


def expire_lease(match: Match) -> None:
    Match.objects.filter(id=match.id).update(lease_expires_at=timezone.now() - timedelta(1))


def test_an_attempt_a_database_outage_ended_is_given_back_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    match = leased_brexit_match()
    fail_leased_flush(monkeypatch)
    for owner, refund_of in (("w1", None), ("w2", "w1"), ("w3", "w2")):
        expire_lease(match)
        with pytest.raises(runner.AttemptInterrupted) as ended:
            runner.run_match(match.id, owner, refund_of=refund_of)
        assert ended.value.owner == owner and outages.is_database_outage(ended.value)
    # The dead worker's attempt and w1's count; w2 gave w1's back, w3 gave w2's back.
    assert attempts_of(match) == 2
    monkeypatch.undo()
    expire_lease(match)
    assert runner.run_match(match.id, "w4", refund_of="w3") is runner.RunResult.FINISHED
    assert attempts_of(match) == 2


def test_an_attempt_is_not_given_back_twice_nor_after_another_claim() -> None:
    match = leased_brexit_match()
    assert lifecycle.do_claim(match.id, "w1", refund_of="dead-worker")  # gives the dead one back
    assert attempts_of(match) == 1
    expire_lease(match)
    # The same retry delivered again: w1 has the match now, nothing more to give back.
    assert lifecycle.do_claim(match.id, "w2", refund_of="dead-worker")
    assert attempts_of(match) == 2
    expire_lease(match)
    with own_queues():  # its message stays out of the run's queues, which workers here read
        reaper.reap_expired_leases()  # queued again, w2 still named
    assert lifecycle.do_claim(match.id, "w3", refund_of="w2")
    assert attempts_of(match) == 2
