"""Celery tasks: thin wrappers that call the runner and the services.

``play_match`` is acknowledged late and rejected on worker loss, so a match
whose worker dies is redelivered; the runner's lease makes a redelivered or
duplicated message harmless (a match is never played twice). A database outage
is retried with a growing delay, never turned into a result (docs/reliability.md).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from celery import Task, shared_task
from celery.exceptions import Retry
from celery.signals import worker_process_init, worker_ready
from django.conf import settings

log = logging.getLogger(__name__)


@worker_process_init.connect
def tune_worker_process(**kwargs: object) -> None:
    from tournaments.runtime import tune_gc

    tune_gc()


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
    """Remove bots' staged copies left by a worker that was killed (SIGKILL runs no cleanup).

    At the worker's start, and in each pool process it starts, which is also how a pool process
    killed mid-match is replaced; the copies of live siblings are locked, so they stay.
    """
    from games.sandbox.isolation import clean_stale_staging

    removed = clean_stale_staging()
    if removed:
        log.info("sandbox: removed %d staged copies of dead workers", len(removed))


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
    from tournaments.outages import is_database_outage

    try:
        yield
    except Exception as exc:
        if is_database_outage(exc):
            raise retry_after_outage(task, exc) from exc
        raise


@shared_task(
    bind=True,
    name="tournaments.play_match",
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=None,
)
def play_match(self: Task[Any, Any], match_id: str, refund_of: str | None = None) -> str:
    """``refund_of``: the attempt at this match that a database outage ended (runner.claim)."""
    from tournaments import runner
    from tournaments.outages import is_database_outage

    try:
        result = runner.run_match(uuid.UUID(match_id), refund_of=refund_of)
    except Exception as exc:
        if not is_database_outage(exc):
            raise
        # The attempt the outage ended, if it had claimed the match, else the one still owed.
        ended = exc.owner if isinstance(exc, runner.AttemptInterrupted) else refund_of
        raise retry_after_outage(self, exc, refund_of=ended) from exc
    if result is runner.RunResult.BUSY:
        # Held by a worker that may have died: look again once its lease can have expired.
        raise self.retry(countdown=runner.lease_seconds() + 1)
    if result is runner.RunResult.FINISHED:
        update_ratings.delay()  # ratings follow results within moments, not at the next beat
    return str(result.value)


@shared_task(
    bind=True,
    name="tournaments.validate_bot_version",
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=None,
)
def validate_bot_version(self: Task[Any, Any], version_id: int) -> str:
    from tournaments import validation

    with retried_after_outage(self):  # the version stays pending until it is validated
        status: str = validation.validate(version_id)
    return status


def enqueue_match(match_id: str) -> None:
    """Put a match on the workers' queue: ``MATCH_QUEUE``, where the task routes send
    ``play_match`` too, read when sending (so a test can give its run a queue of its own)."""
    play_match.apply_async((match_id,), queue=settings.MATCH_QUEUE)


@shared_task(name="tournaments.reap_matches")
def reap_matches() -> int:
    from tournaments import humans, runner

    # People's seats too: play the default past a decision's deadline, end abandoned matches.
    return runner.reap_expired_leases(
        send=enqueue_match,
        send_validation=lambda version_id: validate_bot_version.delay(version_id),
    ) + humans.reap(send=enqueue_match)


@shared_task(name="tournaments.update_ratings")
def update_ratings() -> int:
    """Rate every finished match the feed has settled (cheap when there is none)."""
    from tournaments import rating_feed

    return rating_feed.consume()


@shared_task(name="tournaments.run_ladders")
def run_ladders() -> int:
    """One round of every active ladder (scheduled by a periodic task editable in the admin)."""
    from tournaments import ladders

    return ladders.play_rounds()


@shared_task(name="tournaments.run_seasons")
def run_seasons() -> int:
    """Start each running season's matches that its pace allows by now."""
    from tournaments import seasons

    return seasons.play_all_due()
