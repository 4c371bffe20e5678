"""A match's lifecycle: every change of a match's status, and every write to its stream.

Nothing else in tournaments/ sets ``Match.status`` (or the fields that go with it: the
lease, the seats waited for) or appends to a match's stream; tests/tournaments/test_lifecycle_writers.py
reads the source to hold that. In Zulip's check/do style, a ``check_*`` function refuses with
a typed ``Refusal`` and writes nothing, a ``do_*`` function writes. A transition that depends
on the row's state (claim, suspend, abort) is one conditional UPDATE, whose condition is its
check (a read before it would race with the other workers): it returns whether it took place.

Every transition, the function that makes it, and who calls it:

    from -> to           transition                         function (module)
    (new) -> queued      create (challenge, rated, smoke,   do_create (creation)
                         fork, demo)
    (new) -> running     import a document, then finished   do_import (creation)
                         by its events or aborted
    queued -> running    claim (a named match; the          do_claim, CLAIM_PICKED (leases)
                         scheduler's pick)
    running -> running   flush: events, lease renewed       DatabaseSink, do_renew (stream)
    running -> queued    release (this worker cannot)       do_release (leases)
    running -> queued    lease expired (the reaper)         do_requeue_expired (leases)
    running -> finished  finish: match_finished appended,   DatabaseSink (stream)
                         the trigger writes the row
    running -> waiting   suspend: every pending seat is a   do_suspend (people)
                         person's
    waiting -> waiting   a person's action, people still    take_action = check_action +
                         to decide                          do_action (people)
    waiting -> queued    a person's action, the bots' turn  take_action (people)
    waiting -> queued    the deadline passed                do_queue_late, do_queue_expired
    queued/running       abort: a platform limit, a fault,  do_abort (ends)
      -> aborted         a smoke match not played
    waiting -> aborted   abandon: nobody played for a day   do_abandon (ends)
    queued -> aborted    cancel: a bot deactivated, a       do_cancel (ends)
                         season cancelled

The callers: the runner and the scheduler (claim, play, suspend, abort, release, the
reaper), people's seats (the API's actions; the clock, tournaments/play/reaper.py), the
services (create, fork, cancel), validation (abort, release) and the management
commands (the demo data, an import).

A result is never written here: appending ``match_finished`` is the finish, and the events
table's trigger writes it onto the match and its seats (tournaments/play/projection.py, the
projection's SQL and its Python twin, which ``manage.py verify`` checks the rows against).
"""

from tournaments.play.lifecycle.creation import do_create, do_import
from tournaments.play.lifecycle.ends import do_abandon, do_abort, do_cancel
from tournaments.play.lifecycle.leases import (
    CLAIM_PICKED,
    CLAIMABLE,
    STILL_CLAIMABLE,
    claimable,
    do_claim,
    do_release,
    do_renew,
    do_requeue_expired,
    lease_seconds,
)
from tournaments.play.lifecycle.people import (
    Taken,
    check_action,
    check_waiting,
    do_action,
    do_queue_expired,
    do_queue_late,
    do_suspend,
    state_now,
    take_action,
)
from tournaments.play.lifecycle.refusals import Conflict, Refusal, Refused
from tournaments.play.lifecycle.stream import DatabaseSink, LeaseLost, step_verdicts

__all__ = [
    "CLAIMABLE",
    "CLAIM_PICKED",
    "STILL_CLAIMABLE",
    "Conflict",
    "DatabaseSink",
    "LeaseLost",
    "Refusal",
    "Refused",
    "Taken",
    "check_action",
    "check_waiting",
    "claimable",
    "do_abandon",
    "do_abort",
    "do_action",
    "do_cancel",
    "do_claim",
    "do_create",
    "do_import",
    "do_queue_expired",
    "do_queue_late",
    "do_release",
    "do_renew",
    "do_requeue_expired",
    "do_suspend",
    "lease_seconds",
    "state_now",
    "step_verdicts",
    "take_action",
]
