"""Playing a stored match on a worker: claim it, rebuild it from its events, play on, record once.

The runner decides; every write it makes (the claim, each flush, waiting for people, the
abort) is a transition of tournaments/play/lifecycle/. Guarantees, and what gives each one:

* Never played twice at once: a worker must *claim* a match with a sandboxed
  bot, one UPDATE that succeeds only if the match is queued or its lease has
  expired. Built-in matches take no lease (see run_match).
* Never loses or duplicates an event: every flush appends with the expected
  version (a second writer fails on the unique stream version), and a leased
  flush also renews its lease in the same transaction, so a worker that lost
  its lease writes nothing.
* Result counted once: the match_finished event writes the match's status and
  outcome and the seats' ranks and scores, by trigger, in the statement that
  appends it (tournaments/play/projection.py).
* Survives a dead worker: the task is acknowledged late, so the broker
  redelivers it; the reaper (reaper.py) re-queues matches whose lease expired and re-sends
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
import logging
import os
import socket
import uuid
from collections.abc import Sequence

from games.engine.driver import (
    MatchDriver,
    MatchStopped,
    SeatPlayer,
    SeatStats,
    Suspended,
)
from games.engine.registry import get
from games.sandbox.readiness import isolation_status
from replays import store
from tournaments.play import lifecycle
from tournaments.play.models import Match, Seat
from tournaments.play.outages import is_database_outage
from tournaments.play.players import human_player, match_limits, player_for, take_expired
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
    (``lifecycle.DatabaseSink``'s ``renew``).
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
                lifecycle.do_release(match_id, owner)
            return RunResult.REFUSED
    heartbeat = sandboxed or human or (match.status == Match.Status.RUNNING and not claimed)
    leased = heartbeat or claimed
    if leased and not claimed and not lifecycle.do_claim(match_id, owner, refund_of=refund_of):
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


def play_here(match_id: uuid.UUID) -> RunResult:
    """Claim a queued match for this process and play it to its end, as a worker would.

    For the commands that play a match they have just stored (``manage.py play --persist``,
    the demo data): a match of built-in bots played by ``run_match`` unclaimed takes no lease,
    so it showed ``queued`` while played and ``started_at == finished_at`` (issue 24). Claimed
    first, it is ``running`` with its true start while it plays, whatever its seats. BUSY if a
    worker took it first (it plays it), ALREADY_FINISHED if it is over.
    """
    owner = worker_name()
    if not lifecycle.do_claim(match_id, owner):
        status = Match.objects.filter(id=match_id).values_list("status", flat=True).first()
        return RunResult.BUSY if status == Match.Status.RUNNING else RunResult.ALREADY_FINISHED
    attempts = Match.objects.filter(id=match_id).values_list("attempts", flat=True).get()
    return run_match(match_id, owner, claimed=True, attempts=attempts)


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
        lifecycle.do_abort(match, owner, attempts_reason(attempts - 1))
        return RunResult.ABORTED
    try:
        sink = lifecycle.DatabaseSink(match, owner, seats, leased=heartbeat, renew=renew)
        _play(match, seats, sink)
    except Suspended as waiting:
        lifecycle.do_suspend(match, owner, waiting.seats, waiting.step)
        return RunResult.WAITING
    except lifecycle.LeaseLost:
        log.warning("match %s: another worker has it; stopping without writing", match_id)
        return RunResult.LEASE_LOST
    except MatchStopped as exc:
        log.warning("match %s stopped by a platform limit: %s", match_id, exc)
        lifecycle.do_abort(match, owner, str(exc))
        return RunResult.ABORTED
    except Exception as exc:
        if is_database_outage(exc):
            # Not the match's fault: leave it running (its lease expires) for a later try.
            log.warning("match %s interrupted by a database outage: %s", match_id, exc)
            raise
        log.exception("match %s aborted", match_id)
        lifecycle.do_abort(match, owner, failure_reason(exc))
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


def _play(match: Match, seats: list[Seat], sink: lifecycle.DatabaseSink) -> None:
    # A match never started has no events: skip the read (the append would catch a stray one).
    fresh = match.last_version == 0
    stored = [] if fresh else [ev.as_engine_event() for ev in store.read(match.id)]
    expired = take_expired(match)  # people whose decision's deadline has passed
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
