"""Work the services hand to the workers, sent by task name.

The services cannot import tournaments.tasks: the tasks are the workers' entry points and
import what they run (ladders, seasons), which create their matches through the services.
Looking the task up by its registered name keeps that one direction (tasks -> services) while
sending exactly what ``tasks.play_match.delay`` sends (its routes, its queue). A web process
never imports the tasks module itself: the first send there runs Celery's autodiscovery, as a
worker does at start, so that the name is registered.

A message only wakes a worker, which then takes the match that comes first by class and by
account (tournaments/play/scheduler.py); which task, and so which queue, says the match's class:
``play_person_match`` (the ``people`` queue) for a match with a person's seat,
``validate_bot_version`` (``validation``) for an upload, ``play_match`` (``matches``) for the rest.

Sending happens after the row is committed (``transaction.on_commit``), so a broker that is
down must not turn the request into an error: the match or version is stored and stays
queued or pending, and the reaper (``tournaments.reap_matches``) sends it again once the
broker is back (docs/reliability.md).
"""

from __future__ import annotations

import logging

from celery import current_app
from kombu.exceptions import OperationalError as BrokerError

from config import queues
from tournaments.play.models import Match

log = logging.getLogger(__name__)


def _send(task: str, arg: str | int, countdown: float | None = None) -> bool:
    """Send ``task`` (to be run ``countdown`` seconds from now, else at once); False (logged) if
    the broker cannot be reached."""
    try:
        if task not in current_app.tasks:
            current_app.loader.import_default_modules()
        if countdown is None:
            current_app.tasks[task].delay(arg)
        else:
            current_app.tasks[task].apply_async((arg,), countdown=countdown)
    except (BrokerError, OSError) as exc:
        log.warning(
            "broker unavailable, %s(%s) not sent; the reaper will send it: %s", task, arg, exc
        )
        return False
    return True


def play_match(
    match_id: str,
    priority: int | None = None,
    validation_of: int | None = None,
    *,
    countdown: float | None = None,
) -> bool:
    """Wake a worker for the match, on the queue of its class (``Match.Priority``), at once or
    ``countdown`` seconds from now."""
    if priority == Match.Priority.PERSON:
        return _send(queues.PLAY_PERSON_MATCH, match_id, countdown)
    if priority == Match.Priority.VALIDATION and validation_of is not None:
        return _send(queues.VALIDATE_BOT_VERSION, validation_of, countdown)
    return _send(queues.PLAY_MATCH, match_id, countdown)


def validate_bot_version(version_id: int) -> bool:
    return _send(queues.VALIDATE_BOT_VERSION, version_id)
