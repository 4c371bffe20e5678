"""The match lifecycle (tournaments/play/lifecycle/): each transition, called as its callers call
it (that nothing else writes a match: test_lifecycle_writers.py)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games.engine.decision import Move, verdict
from games.engine.driver import MatchDriver
from games.engine.platform_events import BOT_VERDICT, MATCH_ABORTED, MATCH_FINISHED
from games.engine.registry import get
from replays import store
from replays.store import NewEvent, StoredEvent
from tests.api.test_human_seats import some_action
from tests.factories import UserFactory
from tests.tournaments.conftest import MakeMatch
from tournaments.play import dispatch, lifecycle, runner
from tournaments.play.models import Match, Seat
from tournaments.play.players import builtin_player
from tournaments.play.services import decision_step

pytestmark = pytest.mark.django_db

Sent = list[tuple[str, Any]]


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Sent:
    """What the lifecycle sends to wake a worker (the broker is not what is under test)."""
    record: Sent = []
    monkeypatch.setattr(
        dispatch, "play_match", lambda match_id, *rest: record.append((match_id, *rest))
    )
    return record


@pytest.fixture
def commits(django_capture_on_commit_callbacks: Any) -> Callable[[], Any]:
    return lambda: django_capture_on_commit_callbacks(execute=True)


def builtins(count: int = 3) -> list[Seat]:
    return [Seat(number=n, builtin="random") for n in range(count)]


def test_create_stores_a_queued_match_with_its_seats_and_wakes_a_worker_on_commit(
    sent: Sent, commits: Callable[[], Any]
) -> None:
    with commits():
        match = lifecycle.do_create(
            seats=builtins(), game="brexit", seed=1, options={}, priority=Match.Priority.PERSON
        )
    assert match.status == Match.Status.QUEUED and match.seats.count() == 3
    assert sent == [(str(match.pk), Match.Priority.PERSON)]
    with commits():
        quiet = lifecycle.do_create(seats=builtins(), send=False, game="brexit", seed=1, options={})
    assert sent == [(str(match.pk), Match.Priority.PERSON)] and quiet.last_version == 0


def test_create_with_events_starts_the_stream_with_them(builtin_match: MakeMatch) -> None:
    """A fork's stream begins with copies of the original's events."""
    original = builtin_match(seed=3)
    runner.run_match(original.id)
    stored = store.read(original.id)
    step = decision_step(stored, len(stored) // 2)  # just before a decision, as forks are cut
    copies = [NewEvent(type=ev.type, payload=ev.payload, metadata=ev.metadata) for ev in stored]
    fork = lifecycle.do_create(
        seats=builtins(), events=copies[:step], send=False, game="brexit", seed=3, options={}
    )
    fork.refresh_from_db()
    assert (fork.status, fork.last_version) == (Match.Status.QUEUED, step)
    assert runner.run_match(fork.id) is runner.RunResult.FINISHED


def test_import_finishes_a_document_with_its_result_or_aborts_one_without(
    builtin_match: MakeMatch,
) -> None:
    played = builtin_match(seed=4)
    runner.run_match(played.id)
    played.refresh_from_db()
    stored = store.read(played.id)

    def document(events: list[StoredEvent]) -> list[NewEvent]:  # fresh event ids each time
        return [NewEvent(type=ev.type, payload=ev.payload, metadata=ev.metadata) for ev in events]

    whole = lifecycle.do_import(seats=builtins(), events=document(stored), game="brexit", seed=4)
    assert (whole.status, whole.outcome) == (Match.Status.FINISHED, played.outcome)
    cut = lifecycle.do_import(seats=builtins(), events=document(stored[:-1]), game="brexit", seed=4)
    assert (cut.status, cut.error) == (Match.Status.ABORTED, "imported without a final event")


def test_claim_takes_a_queued_match_once_and_release_puts_it_back(
    builtin_match: MakeMatch,
) -> None:
    match = builtin_match()
    assert lifecycle.do_claim(match.id, "w1")
    assert not lifecycle.do_claim(match.id, "w2")  # a live lease
    match.refresh_from_db()
    assert (match.status, match.lease_owner, match.attempts) == (Match.Status.RUNNING, "w1", 1)
    assert match.started_at is not None and match.lease_expires_at is not None
    assert not lifecycle.do_release(match.id, "w2")  # not theirs
    assert lifecycle.do_release(match.id, "w1")
    match.refresh_from_db()
    assert (match.status, match.lease_owner, match.attempts) == (Match.Status.QUEUED, "", 0)


def test_renew_extends_only_the_owner_s_lease(builtin_match: MakeMatch) -> None:
    match = builtin_match()
    assert lifecycle.do_claim(match.id, "w1")
    soon = timezone.now() + timedelta(seconds=1)
    Match.objects.filter(id=match.id).update(lease_expires_at=soon)
    assert not lifecycle.do_renew(match.id, "w2")
    assert lifecycle.do_renew(match.id, "w1")
    match.refresh_from_db()
    assert match.lease_expires_at is not None and match.lease_expires_at > soon


def test_an_expired_lease_is_queued_again_and_claimed_by_another(builtin_match: MakeMatch) -> None:
    match, live = builtin_match(), builtin_match()
    assert lifecycle.do_claim(match.id, "dead") and lifecycle.do_claim(live.id, "alive")
    Match.objects.filter(id=match.id).update(lease_expires_at=timezone.now() - timedelta(1))
    assert lifecycle.do_requeue_expired(timezone.now()) == ([match.id], 1)
    match.refresh_from_db()
    assert (match.status, match.lease_owner) == (Match.Status.QUEUED, "dead")  # for refund_of
    assert lifecycle.do_claim(match.id, "next", refund_of="dead")
    assert Match.objects.get(id=match.id).attempts == 1  # the dead one's attempt given back


def test_the_sink_writes_every_flush_and_the_final_event_is_the_finish(
    builtin_match: MakeMatch,
) -> None:
    match = builtin_match(seed=9)
    players = [builtin_player("brexit", "random", seed=9 + n) for n in range(3)]
    sink = lifecycle.DatabaseSink(match, "w", list(match.seats.order_by("number")), leased=False)
    driver = MatchDriver(
        get("brexit").rules,
        seats=3,
        seed=match.seed,
        options={},
        players=players,
        sink=sink,
        flush_every=64,
    )
    outcome = driver.run()
    match.refresh_from_db()
    events = store.read(match.id)
    assert events[-1].type == MATCH_FINISHED
    assert (match.status, match.outcome, match.last_version) == ("finished", outcome, len(events))
    ranks = [seat.rank for seat in match.seats.order_by("number")]
    assert ranks == outcome["ranks"]


def person_waiting(user: Any, *, deadline_passed: bool = False) -> Match:
    """A match waiting for ``user``'s seat 0, as the runner leaves it."""
    match = lifecycle.do_create(
        seats=[Seat(number=0, player=user), *builtins(3)[1:]],
        send=False,
        game="brexit",
        seed=5,
        options={},
        priority=Match.Priority.PERSON,
        human_acted_at=timezone.now(),
    )
    assert runner.run_match(match.id) is runner.RunResult.WAITING
    if deadline_passed:
        Match.objects.filter(id=match.id).update(deadline=timezone.now() - timedelta(seconds=1))
    match.refresh_from_db()
    assert (match.status, match.waiting_for) == (Match.Status.WAITING, [0])
    return match


def test_suspend_lets_the_worker_go_and_only_its_lease_owner_suspends(
    builtin_match: MakeMatch,
) -> None:
    match = builtin_match()
    assert lifecycle.do_claim(match.id, "w1")
    assert not lifecycle.do_suspend(match, "w2", [1], 4)
    assert lifecycle.do_suspend(match, "w1", [2, 1], 4)
    match.refresh_from_db()
    assert (match.status, match.waiting_for, match.waiting_step) == ("waiting", [1, 2], 4)
    assert (match.lease_owner, match.lease_expires_at, match.attempts) == ("", None, 0)
    assert match.deadline is not None and match.deadline > timezone.now()
    assert match.suspended_at is not None  # the scheduler's gap before a person's head start


def test_a_person_s_action_is_checked_then_stored_as_a_bot_s_is(
    sent: Sent, commits: Callable[[], Any]
) -> None:
    user = UserFactory()
    match = person_waiting(user)
    rules = get("brexit").rules
    state, version = lifecycle.state_now(match)
    with pytest.raises(lifecycle.Refused):  # not a legal action: nothing stored
        lifecycle.check_action(match, 0, None, {"nonsense": True})
    with pytest.raises(lifecycle.Conflict):  # not this seat's decision
        lifecycle.check_action(match, 1, None, some_action(dict(rules.legal(state, 0))))
    with pytest.raises(lifecycle.Conflict):  # an answered decision
        lifecycle.check_action(match, 0, version - 1, some_action(dict(rules.legal(state, 0))))
    assert store.current_version(match.id) == version

    action = some_action(dict(rules.legal(state, 0)))
    with commits():
        after = lifecycle.take_action(match.id, 0, action, version)
    stored = store.read(match.id)[version:]
    assert stored[0].type == BOT_VERDICT
    expected = verdict(0, Move(action), strikes=0, step=version)
    same = {"seat", "verdict", "step", "strikes", "detail"}
    assert {k: v for k, v in stored[0].payload.items() if k in same} == {
        k: v for k, v in expected["payload"].items() if k in same
    }
    assert after.last_version == version + len(stored)
    # The bots' turn: queued, and a worker woken at once on the people's queue.
    assert (after.status, after.waiting_for, after.deadline) == (Match.Status.QUEUED, [], None)
    assert (after.priority, sent) == (Match.Priority.PERSON, [(str(match.pk), 0)])


def test_a_person_late_for_a_decision_queues_the_default_and_is_refused(
    sent: Sent, commits: Callable[[], Any]
) -> None:
    match = person_waiting(UserFactory(), deadline_passed=True)
    with commits(), pytest.raises(lifecycle.Conflict, match="deadline"):
        lifecycle.take_action(match.id, 0, {"pass": True}, None)
    match.refresh_from_db()
    assert (match.status, match.priority) == (Match.Status.QUEUED, Match.Priority.PERSON)
    assert sent == [(str(match.pk), Match.Priority.PERSON)]
    assert lifecycle.do_queue_late(match.id) is None  # queued already: nothing late waits


def test_the_clock_queues_a_decision_past_its_deadline_behind_others() -> None:
    match = person_waiting(UserFactory(), deadline_passed=True)
    before = timezone.now() - timedelta(hours=1)
    assert not lifecycle.do_queue_expired(match.id, before)  # not past it then
    assert lifecycle.do_queue_expired(match.id, timezone.now())
    match.refresh_from_db()
    assert (match.status, match.priority) == (Match.Status.QUEUED, Match.Priority.PLAY)


def aborted_with(match: Match, reason: str) -> None:
    match.refresh_from_db()
    assert (match.status, match.error) == (Match.Status.ABORTED, reason)
    assert (match.lease_owner, match.waiting_for, match.deadline) == ("", [], None)
    assert match.finished_at is not None
    last = store.read(match.id)[-1]
    assert (last.type, last.payload) == (MATCH_ABORTED, {"reason": reason})


def test_abort_ends_a_match_its_worker_holds_or_a_queued_one(builtin_match: MakeMatch) -> None:
    held, queued = builtin_match(), builtin_match()
    assert lifecycle.do_claim(held.id, "w1")
    assert not lifecycle.do_abort(held, "w2", "not theirs")
    assert lifecycle.do_abort(held, "w1", "a limit")
    aborted_with(held, "a limit")
    assert lifecycle.do_abort(queued, "anyone", "not played")
    aborted_with(queued, "not played")
    assert not lifecycle.do_abort(queued, "anyone", "twice")  # over


def test_abandon_ends_only_a_match_that_waits_for_people(builtin_match: MakeMatch) -> None:
    assert not lifecycle.do_abandon(builtin_match(), "nobody")
    match = person_waiting(UserFactory())
    assert lifecycle.do_abandon(match, "nobody played")
    aborted_with(match, "nobody played")


def test_cancel_ends_the_queued_matches_and_leaves_the_started_ones(
    builtin_match: MakeMatch,
) -> None:
    queued, started = builtin_match(), builtin_match()
    assert lifecycle.do_claim(started.id, "w")
    both = Match.objects.filter(id__in=[queued.id, started.id])
    assert lifecycle.do_cancel(both, "a bot left") == 1
    aborted_with(queued, "cancelled: a bot left")
    assert Match.objects.get(id=started.id).status == Match.Status.RUNNING
