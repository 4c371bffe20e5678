"""The Celery queues and which task goes to which, shared by every settings module.

Work is split by kind so that one kind cannot starve another: a flood of challenges fills
``matches`` while the ladder's ratings still move on ``ratings``. A match's message only wakes
a worker, which takes the most urgent match from Postgres (tournaments/play/scheduler.py): a
message on ``people`` takes only matches with a person's seat, one on ``validation`` those or
an upload's smoke match, one on ``matches`` any (people's first). So a worker reading every
queue serves people and uploads first, and a worker reading only ``people`` is kept for them.
A worker started without ``--queues`` consumes every queue listed here (Celery's
``task_queues``); a dedicated worker pool names its own (docs/scaling.md).
"""

from __future__ import annotations

from typing import Any

from kombu import Exchange, Queue

PLAY_MATCH = "tournaments.play_match"
PLAY_PERSON_MATCH = "tournaments.play_person_match"
VALIDATE_BOT_VERSION = "tournaments.validate_bot_version"
UPDATE_RATINGS = "tournaments.update_ratings"
RUN_SEASONS = "tournaments.run_seasons"  # finishing a season fits its final standings


def task_queues(names: list[str], queue_arguments: dict[str, Any] | None = None) -> list[Queue]:
    """One direct exchange and queue per name, declared exactly as Celery declares a missing one."""
    return [
        Queue(name, Exchange(name), routing_key=name, queue_arguments=queue_arguments)
        for name in names
    ]


def task_routes(
    *, matches: str, validation: str, people: str, ratings: str
) -> dict[str, dict[str, str]]:
    """Matches, validation, people's matches, and ratings with standings each on a queue of
    their own; the rest (the reaper and ladder rounds, short) on the default queue."""
    return {
        PLAY_MATCH: {"queue": matches},
        PLAY_PERSON_MATCH: {"queue": people},
        VALIDATE_BOT_VERSION: {"queue": validation},
        UPDATE_RATINGS: {"queue": ratings},
        RUN_SEASONS: {"queue": ratings},
    }
