"""Queues of one test's own: the tasks this process sends land there, and the test reads them.

The run's queues (settings/test.py) are shared by every test of an xdist worker, so a test that
checks which message reached which queue routes the play tasks to fresh ones for its duration,
exactly as the settings route them (config.queues.task_routes), and reads them back from the
real broker.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from config.queues import task_queues, task_routes

KINDS = ("matches", "validation", "people", "ratings")


@dataclass
class OwnQueues:
    names: dict[str, str]

    def sent(self, kind: str, expected: int, seconds: float = 5.0) -> list[tuple[str, Any]]:
        """The (task name, first argument) of each message on the ``kind`` queue, taken off
        it; waits up to ``seconds`` for ``expected`` of them, and once it has them takes whatever
        else is queued already (so one message too many shows), without waiting for more."""
        from config.celery import app

        found: list[tuple[str, Any]] = []
        queue = app.amqp.queues[self.names[kind]]
        deadline = time.monotonic() + seconds
        with app.connection_for_read() as conn:
            bound = queue(conn.default_channel)
            bound.declare()
            while time.monotonic() < deadline:
                message = bound.get(no_ack=True)
                if message is None:
                    if len(found) >= expected:
                        break
                    time.sleep(0.05)
                    continue
                args, _kwargs, _embed = message.decode()
                found.append((message.headers["task"], args[0]))
        return found


@contextmanager
def own_queues() -> Iterator[OwnQueues]:
    from config.celery import app

    suffix = uuid.uuid4().hex[:12]
    names = {kind: f"test-{kind}-{suffix}" for kind in KINDS}
    arguments = settings.CELERY_TASK_QUEUES[0].queue_arguments
    declared = task_queues(list(names.values()), queue_arguments=arguments)
    routes = app.conf.task_routes
    for queue in declared:
        app.amqp.queues[queue.name] = queue
    app.conf.task_routes = task_routes(**names)
    _reroute(app)
    try:
        yield OwnQueues(names)
    finally:
        app.conf.task_routes = routes
        _reroute(app)
        with app.connection_for_write() as conn:
            channel = conn.default_channel
            for queue in declared:
                queue(channel).delete()
                queue.exchange(channel).delete()
                app.amqp.queues.pop(queue.name, None)


def _reroute(app: Any) -> None:
    # The router keeps the table it was made with (celery.app.amqp): make it read it again.
    app.amqp.flush_routes()
    app.amqp.router = app.amqp.Router()
