"""Work the services hand to the workers, sent by task name.

The services cannot import tournaments.tasks: the tasks are the workers' entry points and
import what they run (ladders, seasons), which create their matches through the services.
Looking the task up by its registered name keeps that one direction (tasks -> services) while
sending exactly what ``tasks.play_match.delay`` sends (its routes, its queue).
"""

from __future__ import annotations

from celery import current_app

PLAY_MATCH = "tournaments.play_match"
VALIDATE_BOT_VERSION = "tournaments.validate_bot_version"


def play_match(match_id: str) -> None:
    current_app.tasks[PLAY_MATCH].delay(match_id)


def validate_bot_version(version_id: int) -> None:
    current_app.tasks[VALIDATE_BOT_VERSION].delay(version_id)
