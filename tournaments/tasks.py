"""Celery tasks: thin wrappers that call the scheduler, the runner and the services.

``play_match``, ``play_person_match`` and ``validate_bot_version`` each wake a worker, which
plays the match that comes first by class and by account (tournaments/play/scheduler.py), not
necessarily the one the message names. They are acknowledged late and rejected on worker
loss, so a message whose worker dies is redelivered; the runner's lease makes a redelivered
or duplicated message harmless (a match is never played twice). A database outage is retried
with a growing delay, never turned into a result (docs/reliability.md).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from celery import Task, shared_task
from celery.exceptions import Retry
from celery.signals import celeryd_after_setup, worker_process_init, worker_ready

from config import queues

log = logging.getLogger(__name__)


@worker_process_init.connect
def tune_worker_process(**kwargs: object) -> None:
    from tournaments.play.runtime import tune_gc

    tune_gc()


@celeryd_after_setup.connect
def note_queues(sender: object, instance: Any, **kwargs: object) -> None:
    """Tell the scheduler which queues this worker reads (before its pool's processes fork)."""
    from tournaments.play import scheduler

    names = list(instance.app.amqp.queues.consume_from)
    scheduler.note_queues(names)
    log.info("scheduler: this worker reads %s, takes classes up to %s", names, scheduler.WIDEST)


@worker_ready.connect
def report_sandbox(**kwargs: object) -> None:
    """Say at every start whether this worker can run uploaded bots, and why not."""
    from games.sandbox.readiness import isolation_status

    ok, reason = isolation_status()
    if ok:
        log.info("sandbox: %s", reason)
    else:
        log.error("sandbox unavailable, uploaded bots will not be started here: %s", reason)


@worker_ready.connect
@worker_process_init.connect
def clean_staged_copies(**kwargs: object) -> None:
    """Remove bots' staged copies and CPU cgroups left by a worker that was killed (SIGKILL
    runs no cleanup).

    At the worker's start, and in each pool process it starts, which is also how a pool process
    killed mid-match is replaced; the copies of live siblings are locked, so they stay.
    """
    from games.sandbox.cpu import clean_stale_cages
    from games.sandbox.isolation import clean_stale_staging

    removed = clean_stale_staging()
    if removed:
        log.info("sandbox: removed %d staged copies of dead workers", len(removed))
    cages = clean_stale_cages()  # and their bots' CPU cgroups (games/sandbox/cpu.py)
    if cages:
        log.info("sandbox: removed %d CPU cgroups of dead workers", len(cages))


OUTAGE_RETRY_MAX_SECONDS = 30


def retry_after_outage(task: Task[Any, Any], exc: Exception, **changed: Any) -> Retry:
    """Send the task again after a database outage, sooner at first, then every 30 s at most,
    with its keyword arguments ``changed``.

    The broken connection is dropped first: the retry (in this process) opens a new one.
    """
    from django.db import connection

    try:
        connection.close()
    except Exception:  # closing a connection whose server is gone may fail too
        log.debug("closing the broken connection failed", exc_info=True)
    countdown = min(2 ** min(task.request.retries, 5), OUTAGE_RETRY_MAX_SECONDS)
    log.warning("%s: database unavailable, trying again in %d s: %s", task.name, countdown, exc)
    kwargs = {**(task.request.kwargs or {}), **changed}
    return task.retry(countdown=countdown, exc=exc, kwargs=kwargs)


@contextmanager
def retried_after_outage(task: Task[Any, Any]) -> Iterator[None]:
    """Turn a database outage inside the block into a retry of ``task``; other errors pass."""
    from tournaments.play.outages import is_database_outage

    try:
        yield
    except Exception as exc:
        if is_database_outage(exc):
            raise retry_after_outage(task, exc) from exc
        raise


WAKE_UP: dict[str, Any] = {
    "bind": True,
    "acks_late": True,
    "reject_on_worker_lost": True,
    "max_retries": None,
}
"""How a message that wakes a worker for a match is handled: acknowledged once the match is
over, redelivered if its worker dies, retried after any number of database outages."""


def _serve(task: Task[Any, Any], upto: int, hint: str, refund_of: str | None = None) -> str:
    """Play the next match up to class ``upto`` (its message named ``hint``).

    ``refund_of``: the worker whose attempt at a match a database outage ended; the retry's
    claim of that match counts no new attempt (runner.AttemptInterrupted, scheduler.pick).
    """
    from tournaments.play import lifecycle, runner, scheduler
    from tournaments.play.outages import is_database_outage

    try:
        served = scheduler.serve(upto=upto, hint=uuid.UUID(hint), refund_of=refund_of)
    except Exception as exc:
        if not is_database_outage(exc):
            raise
        # The attempt the outage ended, if it had claimed a match, else the one still owed.
        ended = exc.owner if isinstance(exc, runner.AttemptInterrupted) else refund_of
        raise retry_after_outage(task, exc, refund_of=ended) from exc
    if served.hint_busy:
        # Held by a worker that may have died: look again once its lease can have expired.
        raise task.retry(countdown=lifecycle.lease_seconds() + 1)
    return served.result


@shared_task(name=queues.PLAY_MATCH, **WAKE_UP)
def play_match(self: Task[Any, Any], match_id: str, refund_of: str | None = None) -> str:
    """Any class of match: people's first, then validations, then the rest."""
    from tournaments.play.models import Match

    return _serve(self, Match.Priority.PLAY, match_id, refund_of)


@shared_task(name=queues.PLAY_PERSON_MATCH, **WAKE_UP)
def play_person_match(self: Task[Any, Any], match_id: str, refund_of: str | None = None) -> str:
    """People's matches only (the ``people`` queue: a worker kept for them never plays others)."""
    from tournaments.play.models import Match

    return _serve(self, Match.Priority.PERSON, match_id, refund_of)


@shared_task(name=queues.VALIDATE_BOT_VERSION, **WAKE_UP)
def validate_bot_version(
    self: Task[Any, Any], version_id: int, refund_of: str | None = None
) -> str:
    """Queue the version's smoke match, then play the next person's match or validation."""
    from tournaments.play import validation
    from tournaments.play.models import BotVersion, Match

    with retried_after_outage(self):  # the version stays pending until it is validated
        smoke = validation.prepare(version_id)
    if smoke is not None:
        _serve(self, Match.Priority.VALIDATION, str(smoke), refund_of)
    with retried_after_outage(self):
        status: str = BotVersion.objects.values_list("status", flat=True).get(id=version_id)
    return status


@shared_task(name=queues.REAP_MATCHES)
def reap_matches() -> int:
    """Queue again what no worker is left to do (tournaments/play/reaper.py)."""
    from tournaments.play import reaper, worker_time

    worker_time.forget_old()
    return reaper.reap()


@shared_task(name=queues.ADD_EVENT_PARTITIONS)
def add_event_partitions() -> list[str]:
    """Make the events table's partitions of this month and the next ones that are missing:
    a match made in a month without one has its events in the default partition for good."""
    from replays import partitions

    return partitions.add_partitions()


@shared_task(name=queues.UPDATE_RATINGS)
def update_ratings() -> int:
    """Rate every finished match the feed has settled (cheap when there is none)."""
    from tournaments.rating import rating_feed

    return rating_feed.consume()


@shared_task(name=queues.RUN_LADDERS)
def run_ladders() -> int:
    """One round of every active ladder (scheduled by a periodic task editable in the admin)."""
    from tournaments.competition import ladders

    return ladders.play_rounds()


@shared_task(name=queues.RUN_SEASONS)
def run_seasons() -> int:
    """Start each running season's matches that its pace allows by now."""
    from tournaments.competition import seasons

    return seasons.play_all_due()


@shared_task(name=queues.ADVANCE_SERIES)
def advance_series() -> int:
    """Decide running A/B tests' finished pairs and queue every running series' next deals."""
    from tournaments.competition import series

    return series.advance_all()


@shared_task(name=queues.SEND_WEBHOOK, bind=True, acks_late=True, max_retries=None)
def send_webhook(self: Task[Any, Any], bot_id: int, payload: dict[str, Any], delivery: str) -> bool:
    """One attempt at a bot's webhook call; a failure or a 5xx is tried again later, with a
    doubling delay, up to ``WEBHOOK_ATTEMPTS`` attempts (tournaments/play/webhooks.py)."""
    from tournaments.play import webhooks

    attempt = self.request.retries + 1
    again = webhooks.deliver(bot_id, payload, delivery, attempt)
    if again and attempt < webhooks.attempts():
        raise self.retry(countdown=webhooks.backoff(attempt))
    return not again
