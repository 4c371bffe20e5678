"""Playing a stored match on a worker: claim it, rebuild it from its events, play on, record once.

Guarantees, and what gives each one:

* Never played twice at once: a worker must *claim* a match with a sandboxed
  bot, one UPDATE that succeeds only if the match is queued or its lease has
  expired. Built-in matches take no lease (see run_match).
* Never loses or duplicates an event: every flush appends with the expected
  version (a second writer fails on the unique stream version), and a leased
  flush also renews its lease in the same transaction, so a worker that lost
  its lease writes nothing.
* Result counted once: the match_finished event writes the match's status and
  outcome and the seats' ranks and scores, by trigger, in the statement that
  appends it (migration tournaments/0003).
* Survives a dead worker: the task is acknowledged late, so the broker
  redelivers it; the reaper re-queues matches whose lease expired and re-sends
  long-queued ones. A resumed match folds its stored events and plays on with
  the same random draws.
* Survives a database outage: an operational database error (the server
  restarting, a cut connection) is not the match's fault, so it is not turned
  into an abort; it propagates to the task, which tries again later, and the
  match resumes from its stored events (docs/reliability.md). Nor does it use
  up the match's attempts: the attempt it ended is given back by the claim of
  the task's retry (AttemptInterrupted), however long the outage lasts.
"""

from __future__ import annotations

import enum
import json
import logging
import os
import socket
import uuid
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

import psycopg
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Case, F, Q, Value, When
from django.db.models.functions import Coalesce, Now
from django.utils import timezone

from games.engine.driver import (
    Flush,
    MatchDriver,
    MatchStopped,
    SeatPlayer,
    SeatStats,
    Suspended,
)
from games.engine.platform_events import BOT_VERDICT
from games.engine.registry import get
from games.engine.types import Event as EngineEvent
from games.sandbox.readiness import isolation_status
from replays import store
from replays.store import ConcurrencyError, NewEvent
from tournaments.play import humans, lifecycle
from tournaments.play.models import BotLog, BotVersion, Match, Seat
from tournaments.play.outages import is_database_outage
from tournaments.play.players import human_player, match_limits, player_for
from tournaments.play.selectors import match_to_play

log = logging.getLogger(__name__)


class RunResult(enum.Enum):
    FINISHED = "finished"
    ALREADY_FINISHED = "already_finished"
    BUSY = "busy"
    """Another worker holds a live lease."""
    LEASE_LOST = "lease_lost"
    ABORTED = "aborted"
    REFUSED = "refused"
    """This worker cannot isolate uploaded bots; the match is left for one that can."""
    WAITING = "waiting"
    """A person's seat must decide: the events are stored and the worker released."""


class LeaseLost(Exception):
    """Another worker took the match over; this one must stop without writing."""


class AttemptInterrupted(Exception):
    """A database outage ended this worker's attempt at a match it had claimed.

    Raised from the outage (so it is one: ``is_database_outage``). The outage is not the
    match's fault, but nothing can be written while it lasts; so the task's retry names the
    attempt (``owner``) to the next claim, which gives it back unless another worker has
    claimed the match since (claim's ``refund_of``).
    """

    def __init__(self, owner: str) -> None:
        super().__init__(f"attempt {owner} ended by a database outage")
        self.owner = owner


MAX_ATTEMPTS = 3
"""Workers that may start a match: one whose workers keep dying (killed for memory, say) ends
aborted instead of being re-queued for ever. An attempt a database outage ended is not one."""
STALE_QUEUED_AFTER = timedelta(minutes=10)
"""A match queued for longer than this has probably lost its message: the reaper sends it again."""


def lease_seconds() -> int:
    return int(getattr(settings, "MATCH_LEASE_SECONDS", 60))


def attempts_reason(attempts: int) -> str:
    return (
        f"Stopped by the platform: {attempts} workers started this match and none could finish"
        " it, so it has no result."
    )


def failure_reason(exc: Exception) -> str:
    """The aborted match's error for a fault of the platform itself (details in the log)."""
    return (
        f"The platform failed while playing this match ({type(exc).__name__}), so it has no"
        " result; the details are in the worker's log."
    )


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


# A sandboxed match's flush renews its lease and records the seats' statistics in one
# prepared statement (the ORM's version cost more than the COPY of the events); the seat
# updates happen only if the lease was still ours (the join on "renewed"). The result
# itself is written by the events' trigger (migration tournaments/0003).
_HEARTBEAT = """
WITH renewed AS (
    UPDATE tournaments_match
    SET lease_expires_at = now() + make_interval(secs => %(lease)s)
    WHERE id = %(id)s AND status = 'running' AND lease_owner = %(owner)s
    RETURNING id
), seats AS (
    UPDATE tournaments_seat AS s SET
        verdicts = v.verdicts::jsonb, strikes = v.strikes, time_used_ms = v.time_used_ms,
        disqualified = v.disqualified
    FROM renewed, unnest(
        %(seat_ids)s::bigint[], %(verdicts)s::text[], %(strikes)s::int[], %(time_used_ms)s::int[],
        %(disqualified)s::bool[]
    ) AS v(id, verdicts, strikes, time_used_ms, disqualified)
    WHERE s.id = v.id AND s.match_id = renewed.id
)
SELECT count(*) FROM renewed
"""


def _claimable() -> Q:
    return Q(status=Match.Status.QUEUED) | Q(
        status=Match.Status.RUNNING, lease_expires_at__lt=Now()
    )


def _claim_fields(owner: str, refund_of: str | None = None) -> dict[str, Any]:
    # The UPDATE compares the row's lease_owner before it sets it: the attempt ``refund_of``
    # is given back only if no other worker has claimed the match since, and only once.
    counted: Any = Value(1)
    if refund_of:
        counted = Case(When(lease_owner=refund_of, then=Value(0)), default=Value(1))
    return {
        "status": Match.Status.RUNNING,
        "lease_owner": owner,
        "lease_expires_at": Now() + timedelta(seconds=lease_seconds()),
        "attempts": F("attempts") + counted,
        "started_at": Coalesce("started_at", Now()),
    }


def claim(match_id: uuid.UUID, owner: str, *, refund_of: str | None = None) -> bool:
    """Take the match if it is queued or its lease has expired (one atomic UPDATE).

    Each claim counts an attempt, except the claim that follows an attempt a database outage
    ended (``refund_of``, its owner): that one takes its place.
    """
    fields = _claim_fields(owner, refund_of)
    return Match.objects.filter(_claimable(), id=match_id).update(**fields) == 1


def run_match(
    match_id: uuid.UUID,
    owner: str | None = None,
    *,
    claimed: bool = False,
    attempts: int | None = None,
    refund_of: str | None = None,
) -> RunResult:
    """Play the match to its end if this worker can claim it. Never raises on bot faults.

    A database outage propagates, as AttemptInterrupted once the match is claimed; the retry
    passes that attempt's owner back as ``refund_of`` (see claim).

    A match with a sandboxed bot is claimed before it starts: its bots' time is
    expensive, so two workers must never run it at once. A match of built-in bots
    only takes no lease: it is cheap and deterministic, its events are its only
    writes, and the expected version of each append is what keeps a second worker
    (a redelivered message) from writing it twice; that worker merely discards work.

    ``claimed``: the scheduler (tournaments/play/scheduler.py) has claimed it for ``owner``
    already, whatever its seats, and ``attempts`` is the count its claim left; a built-in
    match is then still written by streaming COPY, and its lease renewed at each flush
    (``DatabaseSink.renew``).
    """
    assert owner is not None or not claimed, "a claimed match is played by its claimer"
    owner = owner or worker_name()
    # Bot versions (and their uploads) are loaded only for sandboxed seats, by player_for.
    found = match_to_play(match_id)
    if found is None or found[0].status in (Match.Status.FINISHED, Match.Status.ABORTED):
        return RunResult.ALREADY_FINISHED
    match, seats = found
    if match.status == Match.Status.WAITING:
        return RunResult.WAITING  # a stray message: the person's action queues it again
    sandboxed = any(seat.bot_version_id is not None for seat in seats)
    # People's matches take a lease too: they stop and resume many times, one worker a time.
    human = any(seat.player_id is not None for seat in seats)
    if sandboxed:
        isolated, why = isolation_status()
        if not isolated:
            log.error(
                "match %s left queued: this worker cannot run uploaded bots: %s", match_id, why
            )
            if claimed:
                release(match_id, owner)
            return RunResult.REFUSED
    heartbeat = sandboxed or human or (match.status == Match.Status.RUNNING and not claimed)
    leased = heartbeat or claimed
    if leased and not claimed and not claim(match_id, owner, refund_of=refund_of):
        status = Match.objects.filter(id=match_id).values_list("status", flat=True).first()
        return RunResult.BUSY if status == Match.Status.RUNNING else RunResult.ALREADY_FINISHED
    if leased and (attempts is None or not claimed):
        attempts = Match.objects.filter(id=match_id).values_list("attempts", flat=True).get()
    try:
        return _run_claimed(
            match,
            seats,
            owner,
            attempts=attempts if leased else None,
            heartbeat=heartbeat,
            renew=claimed and not heartbeat,
        )
    except Exception as exc:
        if leased and is_database_outage(exc):
            raise AttemptInterrupted(owner) from exc
        raise


def _run_claimed(
    match: Match,
    seats: list[Seat],
    owner: str,
    *,
    attempts: int | None,
    heartbeat: bool,
    renew: bool,
) -> RunResult:
    """Play a match this worker holds (``attempts`` None: it takes no lease)."""
    match_id = match.id
    if attempts is not None and attempts > MAX_ATTEMPTS:
        log.warning("match %s aborted: started %d times", match_id, attempts)
        _abort(match, owner, attempts_reason(attempts - 1))
        return RunResult.ABORTED
    try:
        sink = DatabaseSink(match, owner, seats, leased=heartbeat, renew=renew)
        _play(match, seats, sink)
    except Suspended as waiting:
        humans.suspend(match, owner, waiting.seats, waiting.step)
        return RunResult.WAITING
    except LeaseLost:
        log.warning("match %s: another worker has it; stopping without writing", match_id)
        return RunResult.LEASE_LOST
    except MatchStopped as exc:
        log.warning("match %s stopped by a platform limit: %s", match_id, exc)
        _abort(match, owner, str(exc))
        return RunResult.ABORTED
    except Exception as exc:
        if is_database_outage(exc):
            # Not the match's fault: leave it running (its lease expires) for a later try.
            log.warning("match %s interrupted by a database outage: %s", match_id, exc)
            raise
        log.exception("match %s aborted", match_id)
        _abort(match, owner, failure_reason(exc))
        return RunResult.ABORTED
    return RunResult.FINISHED


def resume_seats(players: Sequence[SeatPlayer], stats: Sequence[SeatStats]) -> None:
    """A sandboxed bot's strikes and time bank go on across resumes (its seat controller keeps
    them): a match with a person's seat resumes at each of their decisions."""
    for seat, player in enumerate(players):
        controller = getattr(player, "controller", None)
        if controller is not None:
            bank_ms = stats[seat].bank_ms
            controller.resume(stats[seat].strikes, None if bank_ms is None else bank_ms / 1000)


def _play(match: Match, seats: list[Seat], sink: DatabaseSink) -> None:
    # A match never started has no events: skip the read (the append would catch a stray one).
    fresh = match.last_version == 0
    stored = [] if fresh else [ev.as_engine_event() for ev in store.read(match.id)]
    expired = humans.take_expired(match)  # people whose decision's deadline has passed
    players: list[SeatPlayer] = [
        human_player(match, seat, expired)
        if seat.player_id is not None
        else player_for(match, seat, len(seats))
        for seat in seats
    ]
    driver = MatchDriver(
        get(match.game).rules,
        seats=len(seats),
        seed=match.seed,
        options=match.options,
        players=players,
        stored=stored,
        sink=sink,
        limits=match_limits(),
    )
    resume_seats(players, driver.stats)
    driver.run()  # which aborts the sink if it fails (see replays.store.Appender)


class DatabaseSink:
    """Makes each flush durable: one transaction with a lease heartbeat, or (no lease) one COPY.

    Without a lease the events stream into an open COPY as the engine records
    them (``stage``), and the flush only ends it: Postgres has received and parsed
    most rows by then, while the engine was busy with the next ones.
    """

    def __init__(
        self,
        match: Match,
        owner: str,
        seats: list[Seat],
        *,
        leased: bool = True,
        renew: bool = False,
    ) -> None:
        """``leased``: each flush is one transaction with the lease's heartbeat. Otherwise the
        events stream into a COPY, and ``renew`` (a built-in match the scheduler claimed)
        extends the lease after each flush, so that a long match is not reaped while it plays."""
        self.match, self.owner, self.seats = match, owner, seats
        self.leased, self.renew = leased, renew
        self.engine_version = get(match.game).rules.engine_version
        self._appender: store.Appender | None = None

    def stage(self, events: Sequence[EngineEvent], after_version: int) -> None:
        if self.leased:
            return  # a leased flush is one transaction with the heartbeat, written at the flush
        if self._appender is None:
            self._appender = store.Appender(self.match.id, after_version)
        try:
            self._appender.add_engine_events(events, self.engine_version)
        except ConcurrencyError as exc:
            self._appender = None
            raise LeaseLost(str(exc)) from exc

    def __call__(self, flush: Flush) -> None:
        if not self.leased:
            self._commit(flush)
            return
        events = self._new_events(flush.events)
        with transaction.atomic():
            self._heartbeat(flush)
            # Any conflict rolls the whole flush back, so no savepoint is needed.
            store.append(self.match.id, events, flush.expected_version, savepoint=False)
            if flush.logs:
                verdicts = step_verdicts(flush.events)
                BotLog.objects.bulk_create(
                    BotLog(
                        match=self.match,
                        seat=seat,
                        version=version,
                        verdict=verdicts.get((seat, version), ""),
                        text=text,
                    )
                    for seat, version, text in flush.logs
                )

    def _commit(self, flush: Flush) -> None:
        """End the streamed COPY: autocommitted, it is one transaction with its triggers' result."""
        appender, self._appender = self._appender, None
        if appender is None:  # nothing staged: a sink used without a driver
            appender = store.Appender(self.match.id, flush.expected_version)
            appender.add_engine_events(flush.events, self.engine_version)
        staged = appender.version - appender.expected_version
        if (appender.expected_version, staged) != (flush.expected_version, len(flush.events)):
            appender.abort()
            raise RuntimeError(
                f"flush of {len(flush.events)} events after {flush.expected_version} does not"
                f" match the {staged} staged after {appender.expected_version}"
            )
        try:
            appender.commit()
        except ConcurrencyError as exc:
            raise LeaseLost(str(exc)) from exc
        if self.renew and flush.outcome is None:  # the last flush's trigger ended the lease
            Match.objects.filter(
                id=self.match.id, status=Match.Status.RUNNING, lease_owner=self.owner
            ).update(lease_expires_at=Now() + timedelta(seconds=lease_seconds()))

    def abort(self) -> None:
        """Drop what was staged and not flushed; a resumed match plays those steps again."""
        appender, self._appender = self._appender, None
        if appender is not None:
            appender.abort()

    def _new_events(self, events: Sequence[EngineEvent]) -> list[NewEvent]:
        version = self.engine_version
        return [NewEvent.from_engine(ev, engine_version=version) for ev in events]

    def _heartbeat(self, flush: Flush) -> None:
        """Renew the lease and record the seats' statistics; LeaseLost if another worker has it."""
        seats = self._changed_seats(flush)
        connection.ensure_connection()
        # A server-side prepared statement: planning this statement cost more than running it.
        with psycopg.Cursor(connection.connection) as cur:
            cur.execute(
                _HEARTBEAT,
                {
                    "id": self.match.id,
                    "owner": self.owner,
                    "lease": lease_seconds(),
                    "seat_ids": [seat.pk for seat in seats],
                    "verdicts": [json.dumps(seat.verdicts) for seat in seats],
                    "strikes": [seat.strikes for seat in seats],
                    "time_used_ms": [seat.time_used_ms for seat in seats],
                    "disqualified": [seat.disqualified for seat in seats],
                },
                prepare=True,
            )
            row = cur.fetchone()
        if not row or row[0] != 1:
            raise LeaseLost(str(self.match.id))

    def _changed_seats(self, flush: Flush) -> list[Seat]:
        """The seats whose bots' statistics this flush records (the sandboxed ones)."""
        changed = []
        for seat in self.seats:
            stats = flush.stats[seat.number]
            if stats.verdicts:
                seat.verdicts, seat.strikes = stats.verdicts, stats.strikes
                seat.time_used_ms = stats.time_used_ms
                seat.disqualified = stats.verdicts.get("disqualified", 0) > 0
                changed.append(seat)
        return changed


def step_verdicts(events: Sequence[EngineEvent]) -> dict[tuple[int, int], str]:
    """The verdict on each (seat, step) decision among ``events``, for the log lines of that step."""
    return {
        (ev["payload"]["seat"], ev["payload"]["step"]): ev["payload"]["verdict"]
        for ev in events
        if ev["type"] == BOT_VERDICT
    }


def release(match_id: uuid.UUID, owner: str) -> bool:
    """Put back a match ``owner`` claimed and will not play (queued again, one attempt less)."""
    return bool(
        Match.objects.filter(id=match_id, status=Match.Status.RUNNING, lease_owner=owner).update(
            status=Match.Status.QUEUED,
            lease_owner="",
            lease_expires_at=None,
            attempts=F("attempts") - 1,
        )
    )


def abort(match: Match, owner: str, reason: str) -> None:
    """End a match ``owner`` holds (or a queued one) without playing it, with ``reason``."""
    _abort(match, owner, reason)


def _abort(match: Match, owner: str, reason: str) -> None:
    """Record why the match could not finish (lifecycle.abort): a leased match only by its
    lease owner; an unleased (built-in) one by anyone while it is still queued."""
    mine = Q(status=Match.Status.RUNNING, lease_owner=owner) | Q(status=Match.Status.QUEUED)
    lifecycle.abort(match.id, match.game, reason, taken_from=mine)


def resend_after() -> timedelta:
    """How long a match may stay queued (or a version pending) before the reaper re-sends it:
    ``MATCH_RESEND_AFTER_SECONDS``, else STALE_QUEUED_AFTER."""
    seconds = getattr(settings, "MATCH_RESEND_AFTER_SECONDS", None)
    return STALE_QUEUED_AFTER if seconds is None else timedelta(seconds=float(seconds))


def reap_expired_leases(
    *,
    send: Callable[[str], object],
    stale_queued_after: timedelta | None = None,
    send_validation: Callable[[int], object] | None = None,
) -> int:
    """Re-queue matches whose worker stopped renewing its lease, and re-send lost queued ones.

    ``send`` puts a match id on the workers' queue (``tournaments.tasks.enqueue_match``): the
    runner is called by the tasks and never imports them. A match whose message was never
    sent (the broker was down when it was created) is one of the lost queued ones; so is a
    version left pending for as long, which ``send_validation`` sends again.
    """
    if stale_queued_after is None:
        stale_queued_after = resend_after()
    now = timezone.now()
    expired = list(
        Match.objects.filter(status=Match.Status.RUNNING, lease_expires_at__lt=now).values_list(
            "id", flat=True
        )
    )
    # lease_owner stays: a worker whose attempt a database outage ended gives it back at its
    # next claim if the match is still as it left it (claim's refund_of).
    requeued = Match.objects.filter(id__in=expired, lease_expires_at__lt=now).update(
        status=Match.Status.QUEUED, lease_expires_at=None
    )
    stale = list(
        Match.objects.filter(
            status=Match.Status.QUEUED, created_at__lt=now - stale_queued_after
        ).values_list("id", flat=True)
    )
    for match_id in {*expired, *stale}:
        send(str(match_id))
    if send_validation is not None:
        pending = BotVersion.objects.filter(
            status=BotVersion.Status.PENDING, created_at__lt=now - stale_queued_after
        ).values_list("id", flat=True)
        for version_id in pending:
            send_validation(version_id)
    if requeued:
        log.warning("re-queued %d matches whose lease expired", requeued)
    return requeued + len(stale)
