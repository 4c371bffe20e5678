"""Every task's name is written once (config/queues.py), and every schedule names a real task."""

from __future__ import annotations

from config import queues
from config.celery import app

NAMES = {
    value
    for key, value in vars(queues).items()
    if key.isupper() and isinstance(value, str) and value.startswith("tournaments.")
}


def test_the_registered_tasks_are_exactly_the_named_ones() -> None:
    app.loader.import_default_modules()
    ours = {name for name in app.tasks if name.startswith("tournaments.")}
    assert ours == NAMES


def test_every_schedule_and_route_names_a_task() -> None:
    assert {entry["task"] for entry in queues.BEAT_SCHEDULE.values()} <= NAMES
    assert queues.RUN_LADDERS in NAMES  # the staff-editable schedule's task
    routes = queues.task_routes(matches="m", validation="v", people="p", ratings="r")
    assert set(routes) <= NAMES
