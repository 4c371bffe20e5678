"""The next match a worker takes (tournaments/play/scheduler.py), chosen over the real database."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from games.engine.driver import Flush, SeatStats
from games.engine.types import Event
from replays import store
from tests.factories import (
    BotVersionFactory,
    MatchFactory,
    SeatFactory,
    UserFactory,
    claim,
    finish,
    suspend,
)
from tournaments import tasks
from tournaments.bench.children import delete_queues, routed_to
from tournaments.competition.models import Ladder
from tournaments.play import lifecycle, runner, scheduler, worker_time
from tournaments.play.models import AccountOrigin, Match, WorkerTime

pytestmark = pytest.mark.django_db

PLAY, VALIDATION, PERSON = Match.Priority.PLAY, Match.Priority.VALIDATION, Match.Priority.PERSON


def queued(by: Any = None, *, priority: int = PLAY, **fields: Any) -> Match:
    """A queued match of built-in bots made by ``by`` (a user), of class ``priority``."""
    match = MatchFactory(created_by=by, priority=priority, **fields)
    for number in range(3):
        SeatFactory(match=match, number=number, bot_version=None, builtin="random")
    return match


def at(match: Match, **times: Any) -> Match:
    """``match`` as if its transitions happened at ``times`` (started_at, finished_at...): the
    lifecycle stamps them with the test transaction's clock, which does not move."""
    Match.objects.filter(pk=match.pk).update(**times)
    match.refresh_from_db()
    return match


def running(
    by: Any = None, owner: str = "worker", *, started_at: datetime | None = None, **fields: Any
) -> Match:
    """A match a live worker (``owner``) is playing for ``by`` (since ``started_at``)."""
    match = claim(queued(by, **fields), owner)
    return match if started_at is None else at(match, started_at=started_at)


def ended(by: Any = None, *, priority: int = PLAY, **times: Any) -> Match:
    """A match of ``by`` played to its end."""
    return at(finish(queued(by, priority=priority)), **times)


def died(by: Any = None, owner: str = "dead-worker") -> Match:
    """A match whose worker (``owner``) died: running, its lease run out a second ago."""
    return at(claim(queued(by), owner), lease_expires_at=timezone.now() - timedelta(seconds=1))


def pick(upto: int = PLAY, sandbox: bool = True) -> uuid.UUID | None:
    picked = scheduler.pick(upto=upto, owner="test-worker", sandbox=sandbox)
    return None if picked is None else picked.id


def test_the_account_with_nothing_running_goes_before_the_one_that_floods() -> None:
    flooder, other = UserFactory(), UserFactory()
    running(flooder)
    running(flooder)
    flood = [queued(flooder) for _ in range(5)]
    mine = queued(other)  # the newest of all
    assert pick() == mine.id
    # Then the flood, oldest first, now that the other account has one running too.
    assert pick() == flood[0].id


def test_with_as_much_running_the_account_with_least_recent_worker_time_goes_first() -> None:
    busy, quiet = UserFactory(), UserFactory()
    older = queued(busy)
    newer = queued(quiet)
    worker_time.charge([f"u:{busy.pk}"], 300.0)
    worker_time.charge([f"u:{quiet.pk}"], 20.0)
    assert pick() == newer.id
    assert pick() == older.id


def test_worker_time_older_than_an_hour_no_longer_counts() -> None:
    busy, quiet = UserFactory(), UserFactory()
    older = queued(busy)
    queued(quiet)
    long_ago = timezone.now() - timedelta(hours=2)
    WorkerTime.objects.create(key=f"u:{busy.pk}", minute=long_ago, seconds=3000.0)
    worker_time.charge([f"u:{quiet.pk}"], 20.0)
    assert pick() == older.id


def test_a_persons_match_then_a_validation_then_the_rest() -> None:
    user = UserFactory()
    ladder = Ladder.objects.create(name="l", game="brexit", seats=3)
    challenge = queued(user)
    rated = queued(None, ladder=ladder, rated=True)
    smoke = queued(user, priority=VALIDATION)
    person = queued(user, priority=PERSON)  # the newest, and its account has most queued
    assert [pick(), pick()] == [person.id, smoke.id]
    assert {pick(), pick()} == {challenge.id, rated.id}
    assert pick() is None


def test_a_persons_matches_go_first_one_at_a_time_per_account() -> None:
    # One account's many person's-seat matches (its "person" a script) held every worker ahead
    # of everyone's challenges (issue 21's outside review): an account's person's match goes
    # first only while none of its own is being played; its others take their turn as the
    # rest do.
    flooder, other = UserFactory(), UserFactory()
    running(flooder, priority=PERSON)
    flood = [queued(flooder, priority=PERSON) for _ in range(3)]
    challenge = queued(other)  # the newest of all
    assert pick() == challenge.id
    assert pick() == flood[0].id
    # Someone else's person's match still goes first of all.
    person = queued(other, priority=PERSON)
    queued(flooder)
    assert pick() == person.id


@pytest.mark.parametrize("urgent", [PERSON, VALIDATION])
def test_an_addresss_people_and_uploads_go_ahead_of_the_rest_one_at_a_time(urgent: int) -> None:
    # Two accounts of one address, each with a "person" answering at once, held both workers
    # ahead of another user's challenge for the whole attack (the second outside review of
    # issue 21); one address's slow uploads ran back to back on both, for 26 s (the third).
    first, second, elsewhere = UserFactory(), UserFactory(), UserFactory()
    for user in (first, second):
        AccountOrigin.objects.create(user=user, address="198.51.100.7")
    AccountOrigin.objects.create(user=elsewhere, address="203.0.113.9")
    running(first, priority=urgent)
    queued(second, priority=urgent)
    challenge = queued(elsewhere)
    assert pick() == challenge.id


@pytest.mark.parametrize("same_address", [False, True])
def test_a_person_answering_at_once_takes_turns_until_the_gap_passes(
    settings: Any, same_address: bool
) -> None:
    # With one worker free, a script answering its "person's" seats the moment each match
    # stopped for it had every next segment go first, delaying another user's challenge by
    # 11 s (the known limit of issue 21's fourth review): the head start waits for the gap.
    settings.FAIR_HEAD_START_GAP_SECONDS = 30.0
    script, helper, other = UserFactory(), UserFactory(), UserFactory()
    AccountOrigin.objects.create(user=script, address="198.51.100.7")
    AccountOrigin.objects.create(user=helper, address="198.51.100.7")
    challenge = queued(other)  # the oldest: first among equals once no head start is left
    just_now = timezone.now() - timedelta(seconds=1)
    # The match that just stopped (this one, or another of the address's) and its next segment.
    at(suspend(queued(helper if same_address else script)), suspended_at=just_now)
    answered = queued(script, priority=PERSON, suspended_at=just_now)
    assert pick() == challenge.id
    assert pick() == answered.id


@pytest.mark.parametrize("urgent", [PERSON, VALIDATION])
def test_an_addresss_next_urgent_match_waits_the_gap_after_one_ended(
    settings: Any, urgent: int
) -> None:
    # Slow uploads from two accounts of one address, three pending each: whenever one smoke
    # match ended, the worker it freed took the address's next, and another user's challenge
    # waited 161 s behind 12 of them (issue 21's fourth review). A person's match that ends
    # at the person's last decision is the same chain.
    settings.FAIR_HEAD_START_GAP_SECONDS = 30.0
    uploader, other = UserFactory(), UserFactory()
    AccountOrigin.objects.create(user=uploader, address="198.51.100.7")
    challenge = queued(other)
    ended(uploader, priority=urgent, finished_at=timezone.now() - timedelta(seconds=1))
    following = queued(uploader, priority=urgent)
    assert pick() == challenge.id
    assert pick() == following.id


def test_an_addresss_urgent_work_past_its_head_start_budget_takes_its_turn(settings: Any) -> None:
    settings.FAIR_HEAD_START_SECONDS_PER_HOUR = 60.0
    uploader, other = UserFactory(), UserFactory()
    AccountOrigin.objects.create(user=uploader, address="198.51.100.7")
    challenge = queued(other)
    smoke = queued(uploader, priority=VALIDATION)
    worker_time.charge([f"u:{uploader.pk}", "a:198.51.100.7", "urgent:a:198.51.100.7"], 61.0)
    worker_time.charge([f"u:{other.pk}"], 61.0)  # the same worker time otherwise
    assert pick() == challenge.id
    assert pick() == smoke.id


def test_a_person_who_thought_keeps_the_head_start(settings: Any) -> None:
    settings.FAIR_HEAD_START_GAP_SECONDS = 1.0
    person, other = UserFactory(), UserFactory()
    challenge = queued(other)
    thought = queued(person, priority=PERSON, suspended_at=timezone.now() - timedelta(seconds=5))
    assert pick() == thought.id
    assert pick() == challenge.id


def test_an_account_over_its_hourly_budget_loses_its_persons_head_start(settings: Any) -> None:
    settings.FAIR_WORKER_SECONDS_PER_HOUR = 100.0
    spent, within = UserFactory(), UserFactory()
    worker_time.charge([f"u:{spent.pk}"], 150.0)
    late = queued(spent, priority=PERSON)
    waiting = queued(within)
    assert pick() == waiting.id
    assert pick() == late.id


def test_a_message_never_takes_a_match_of_a_later_class() -> None:
    user = UserFactory()
    challenge = queued(user)
    smoke = queued(user, priority=VALIDATION)
    assert pick(upto=PERSON) is None  # a worker kept for people's matches waits for one
    assert pick(upto=VALIDATION) == smoke.id
    assert pick(upto=VALIDATION) is None
    assert pick(upto=PLAY) == challenge.id


def test_ladders_and_seasons_take_turns_with_the_accounts() -> None:
    ladder = Ladder.objects.create(name="l", game="brexit", seats=3)
    user = UserFactory()
    running(None, ladder=ladder, rated=True)
    round_ = [queued(None, ladder=ladder, rated=True) for _ in range(3)]
    challenge = queued(user)
    assert pick() == challenge.id  # the ladder has a match running, the account none
    assert pick() == round_[0].id


def test_accounts_signed_up_from_one_address_share_one_turn() -> None:
    first, second, elsewhere = UserFactory(), UserFactory(), UserFactory()
    AccountOrigin.objects.create(user=first, address="198.51.100.7")
    AccountOrigin.objects.create(user=second, address="198.51.100.7")
    AccountOrigin.objects.create(user=elsewhere, address="203.0.113.9")
    running(first)
    fresh_account = queued(second)  # an account of its own, but its address has one running
    other = queued(elsewhere)
    assert pick() == other.id
    assert pick() == fresh_account.id


def test_an_account_over_its_hourly_budget_waits_behind_the_others(settings: Any) -> None:
    settings.FAIR_WORKER_SECONDS_PER_HOUR = 100.0
    spent, within = UserFactory(), UserFactory()
    worker_time.charge([f"u:{spent.pk}"], 150.0)
    worker_time.charge([f"u:{within.pk}"], 90.0)
    running(within)  # more running, and more recent time than nobody: still first
    late = queued(spent)
    waiting = queued(within)
    assert pick() == waiting.id
    assert pick() == late.id  # played all the same, once nobody within budget waits


def test_a_match_whose_worker_died_is_taken_again() -> None:
    user = UserFactory()
    dead = died(user)
    assert dead.attempts == 1
    picked = scheduler.pick(upto=PLAY, owner="test-worker", sandbox=True)
    assert picked is not None and picked.id == dead.id
    dead.refresh_from_db()
    assert (dead.status, dead.lease_owner, dead.attempts) == ("running", "test-worker", 2)
    assert dead.lease_expires_at is not None and dead.lease_expires_at > timezone.now()


def test_a_worker_that_cannot_sandbox_bots_leaves_their_matches() -> None:
    user = UserFactory()
    sandboxed = MatchFactory(created_by=user)
    SeatFactory(match=sandboxed, number=0, bot_version=BotVersionFactory())
    builtin = queued(user)
    assert pick(sandbox=False) == builtin.id
    assert pick(sandbox=False) is None
    assert pick(sandbox=True) == sandboxed.id


def test_what_it_picks_says_whose_work_it_is() -> None:
    user = UserFactory()
    AccountOrigin.objects.create(user=user, address="2001:db8::1")
    match = queued(user)
    picked = scheduler.pick(upto=PLAY, owner="w", sandbox=True)
    assert picked is not None and picked.id == match.id
    assert picked.keys == (f"u:{user.pk}", "a:2001:db8::1")


def test_serving_plays_the_match_and_charges_its_account(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[str] = []
    monkeypatch.setattr(tasks.update_ratings, "delay", lambda: sent.append("ratings"))
    user = UserFactory()
    match = queued(user)
    served = scheduler.serve(upto=PLAY, hint=match.id)
    assert (served.match_id, served.result) == (match.id, "finished")
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.attempts == 1
    assert worker_time.used([f"u:{user.pk}"])[f"u:{user.pk}"] > 0


def test_a_wake_up_that_plays_another_match_passes_its_message_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sent: list[tuple[str, str]] = []
    monkeypatch.setattr(tasks.play_match, "delay", lambda m: sent.append(("play", m)))
    monkeypatch.setattr(tasks.play_person_match, "delay", lambda m: sent.append(("person", m)))
    flooder, other = UserFactory(), UserFactory()
    running(flooder)
    hint = queued(flooder)  # the message was sent for the flood's next match...
    fair = queued(other)
    served = scheduler.serve(upto=PLAY, hint=hint.id)
    assert served.match_id == fair.id  # ...the worker played the other account's...
    assert sent == [("play", str(hint.id))]  # ...and the flood's match keeps a message.


Sent = list[tuple[str, str, datetime | None]]


@pytest.fixture
def wake_ups() -> Iterator[Callable[[], Sent]]:
    """This process sends its tasks to queues of this test alone, on the real broker; yields a
    reader of the wake-ups sent to the matches queue: (task, match id, when it is to run)."""
    from config.celery import app

    tag = uuid.uuid4().hex[:12]
    kinds = ("celery", "matches", "validation", "people", "ratings")
    names = {kind: f"test-wake-{kind}-{tag}" for kind in kinds}

    def sent() -> Sent:
        found: Sent = []
        with app.connection_for_read() as conn:
            queue = app.amqp.queues[names["matches"]](conn.default_channel)
            queue.declare()
            while (message := queue.get(no_ack=True)) is not None:
                args, _kwargs, _embed = message.decode()
                eta = message.headers.get("eta")
                when = datetime.fromisoformat(eta) if eta else None
                found.append((message.headers["task"], args[0], when))
        return found

    try:
        with routed_to(names):
            yield sent
    finally:
        delete_queues(list(names.values()))


def test_a_wake_up_that_plays_another_match_sends_a_held_ones_message_for_its_lease_expiry(
    wake_ups: Callable[[], Sent],
) -> None:
    # A worker died playing this match, whose lease has 30 s to run; its message was
    # redelivered to a worker that took another match. Dropping the message left the match
    # to the reaper, up to its period after the lease expired.
    interrupted = at(
        claim(queued(UserFactory()), "dead-worker"),
        lease_expires_at=timezone.now() + timedelta(seconds=30),
    )
    other = queued(UserFactory())
    served = scheduler.serve(upto=PLAY, hint=interrupted.id)
    assert (served.match_id, served.result) == (other.id, "finished")
    [(task, match_id, eta)] = wake_ups()
    assert (task, match_id) == ("tournaments.play_match", str(interrupted.id))
    expires = interrupted.lease_expires_at
    assert expires is not None and eta is not None
    assert expires < eta <= expires + timedelta(seconds=scheduler.LEASE_EXPIRY_MARGIN_SECONDS + 1)


def test_a_message_for_a_match_held_by_a_live_worker_waits_for_its_lease() -> None:
    held = running(UserFactory())
    served = scheduler.serve(upto=PLAY, hint=held.id)
    assert served.hint_busy and served.match_id is None


def test_the_task_looks_again_once_a_live_lease_can_have_expired() -> None:
    held = running(UserFactory())

    class LookAgain(Exception):
        pass

    class Task:
        def retry(self, countdown: int) -> LookAgain:
            return LookAgain(countdown)

    with pytest.raises(LookAgain) as again:
        tasks._serve(Task(), PLAY, str(held.id))  # type: ignore[arg-type]
    assert again.value.args == (lifecycle.lease_seconds() + 1,)


@pytest.mark.django_db(transaction=True)
def test_two_workers_at_once_never_take_the_same_match() -> None:
    users = [UserFactory() for _ in range(4)]
    matches = {queued(user).id for user in users for _ in range(2)}
    taken: list[uuid.UUID | None] = []
    start = threading.Barrier(4)

    def worker() -> None:
        try:
            start.wait()
            for _ in range(2):
                taken.append(pick())
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(map(str, taken)) == sorted(map(str, matches))


def test_a_claimed_builtin_match_renews_its_lease_at_each_flush_but_the_last() -> None:
    """A built-in match streams its events (no heartbeat transaction): a long one must still not
    look dead to the reaper while it plays."""
    match = queued(UserFactory())
    picked = scheduler.pick(upto=PLAY, owner="w", sandbox=True)
    assert picked is not None and picked.id == match.id
    soon = timezone.now() + timedelta(seconds=2)
    Match.objects.filter(id=match.id).update(lease_expires_at=soon)
    sink = lifecycle.DatabaseSink(match, "w", list(match.seats.all()), leased=False, renew=True)
    event: Event = {"type": "x", "actor": None, "payload": {}, "visible_to": None, "redacted": None}
    stats = [SeatStats() for _ in range(3)]
    sink(Flush(events=[event], expected_version=0, logs=[], stats=stats, outcome=None))
    match.refresh_from_db()
    assert match.lease_expires_at is not None
    assert match.lease_expires_at > soon + timedelta(seconds=30)  # a whole lease from now
    assert store.current_version(match.id) == 1


def test_a_worker_reading_the_matches_queue_takes_any_class_whatever_message_woke_it(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Woken by an upload's validation message, a worker took only people's and smoke matches:
    # an address's smoke match that had lost its head start was still played before another
    # user's challenge (issue 21's fourth review). A worker kept for people still plays them alone.
    monkeypatch.setattr(scheduler, "WIDEST", None)
    scheduler.note_queues([settings.PEOPLE_QUEUE])
    assert scheduler.widest(PERSON) == PERSON
    scheduler.note_queues([settings.VALIDATION_QUEUE, settings.PEOPLE_QUEUE])
    assert (scheduler.widest(PERSON), scheduler.widest(VALIDATION)) == (VALIDATION, VALIDATION)
    scheduler.note_queues([settings.PEOPLE_QUEUE, settings.MATCH_QUEUE, "celery"])
    assert scheduler.widest(PERSON) == scheduler.widest(VALIDATION) == PLAY
    settings.FAIR_HEAD_START_GAP_SECONDS = 30.0
    uploader, other = UserFactory(), UserFactory()
    challenge = queued(other)
    ended(uploader, priority=VALIDATION, finished_at=timezone.now() - timedelta(seconds=1))
    smoke = queued(uploader, priority=VALIDATION)
    played: list[uuid.UUID] = []
    monkeypatch.setattr(
        scheduler.validation, "validate", lambda version, owner, smoke: played.append(smoke)
    )

    def run_match(match_id: uuid.UUID, owner: str, claimed: bool, attempts: int) -> Any:
        played.append(match_id)
        return runner.RunResult.FINISHED

    monkeypatch.setattr(scheduler.runner, "run_match", run_match)
    monkeypatch.setattr(scheduler.dispatch, "play_match", lambda *args: True)
    scheduler.serve(upto=VALIDATION, hint=smoke.id)
    assert played == [challenge.id]


def test_a_users_match_overtaken_by_as_many_as_the_busy_workers_goes_first() -> None:
    # Four addresses' slow uploads, each taking its head start in turn, held another user's
    # challenge 601 s behind 87 smoke matches (issue 21's fifth review): once as many matches
    # as there are busy workers started after it was made, the challenge takes the first class.
    victim = UserFactory()
    challenge = queued(victim)
    uploaders = [UserFactory() for _ in range(4)]
    for n, user in enumerate(uploaders):
        AccountOrigin.objects.create(user=user, address=f"198.51.100.{n + 1}")
    smokes = [queued(user, priority=VALIDATION) for user in uploaders]
    # Made 5 s ago (this test's transaction's clock, which claims use, began after that), while
    # the other worker was already playing.
    made = timezone.now() - timedelta(seconds=5)
    Match.objects.filter(pk=challenge.pk).update(created_at=made)
    running(uploaders[0], "worker-a", started_at=made - timedelta(seconds=5))
    # The other worker ("test-worker") takes two addresses' smoke matches in turn, then the
    # challenge, overtaken by two: as many as the busy workers, not by the four addresses'.
    assert [pick(), pick(), pick()] == [smokes[1].id, smokes[2].id, challenge.id]


def test_a_flooders_overtaken_challenges_do_not_jump_ahead_of_an_upload() -> None:
    # Its account is being served (one of its matches started since): its queued ones keep
    # their class, even at the moment its match has ended and the worker is free.
    flooder, uploader = UserFactory(), UserFactory()
    made = timezone.now() - timedelta(seconds=5)
    flood = queued(flooder)
    Match.objects.filter(pk=flood.pk).update(created_at=made)
    ended(  # started before its queued one was made, ended after: it was being served
        flooder, started_at=made - timedelta(seconds=1), finished_at=made + timedelta(seconds=1)
    )
    ended(UserFactory(), started_at=made + timedelta(seconds=2))
    smoke = queued(uploader, priority=VALIDATION)
    assert pick() == smoke.id


def test_a_message_whose_running_match_was_not_picked_looks_again() -> None:
    # A dead worker's match: its lease was live when the pick looked and had expired when the
    # message was passed on; dropping the message left the match unplayed (seen in CI).
    lapsed = died(None, "dead")
    assert scheduler._pass_on(lapsed.id, None) is True
