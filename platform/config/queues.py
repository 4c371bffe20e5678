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

# Every task's name, the one place it is written: tournaments/tasks.py registers each under it,
# the services send by it (tournaments/play/dispatch.py), the routes and schedules below name it.
# A name is on the wire and in django-celery-beat's rows, so it never changes.
PLAY_MATCH = "tournaments.play_match"
PLAY_PERSON_MATCH = "tournaments.play_person_match"
VALIDATE_BOT_VERSION = "tournaments.validate_bot_version"
REAP_MATCHES = "tournaments.reap_matches"
UPDATE_RATINGS = "tournaments.update_ratings"
RUN_LADDERS = "tournaments.run_ladders"
RUN_SEASONS = "tournaments.run_seasons"  # finishing a season fits its final standings
ADVANCE_SERIES = "tournaments.advance_series"
SEND_WEBHOOK = "tournaments.send_webhook"  # a bot's webhook call (tournaments/play/webhooks.py)
# The events table's partitions of the coming months (replays/partitions.py).
ADD_EVENT_PARTITIONS = "tournaments.add_event_partitions"

# Every schedule, the one place it is written. Beat reads its schedule from the database
# (django-celery-beat's DatabaseScheduler), which it fills from BEAT_SCHEDULE at each start;
# the ladder rounds' interval is the staff's to change in the admin (it is a ladder's round
# length), so beat must not reset it: its row is made once, by migration 0007 and
# ``manage.py seed_demo``, from LADDER_ROUNDS.
BEAT_SCHEDULE: dict[str, dict[str, Any]] = {
    # Re-queue matches whose worker died (its lease stopped being renewed).
    "reap-matches": {"task": REAP_MATCHES, "schedule": 30.0},
    # Ratings catch up with results whose message was lost (the feed's own trigger, rating/).
    "update-ratings": {"task": UPDATE_RATINGS, "schedule": 15.0},
    # Seasons start, pause and finish on their own clock; each running one gets its due matches.
    "run-seasons": {"task": RUN_SEASONS, "schedule": 30.0},
    # Series and A/B tests: each tick decides finished pairs and queues the next deals
    # (tournaments/competition/series.py says why a tick rather than a hook in the runner).
    "advance-series": {"task": ADVANCE_SERIES, "schedule": 5.0},
    # The events table's partitions for the coming months, made long before their first match.
    "add-event-partitions": {"task": ADD_EVENT_PARTITIONS, "schedule": 3600.0},
}
LADDER_ROUNDS = "ladder rounds"
"""The periodic task's name (``RUN_LADDERS``, every ``LADDER_ROUND_SECONDS``: editable)."""
LADDER_ROUND_SECONDS = 180


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
        ADVANCE_SERIES: {"queue": ratings},
    }
