"""Processes a bench starts beside itself (gunicorn, Celery workers, locust), and their queues.

``bench scale`` and ``bench load`` run the platform's real processes against the bench's own
database and broker queues; this is what they share: a child in its own process group whose
output is kept (for its task ids, or for a failure report), the database URL the children
connect with, and the deletion of the run's queues afterwards.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

from django.conf import settings
from django.db import connection

from config.queues import task_routes

log = logging.getLogger(__name__)


class Child:
    """A child process in its own session, its output read on a thread.

    ``keep`` lines at most are kept (None: all of them, for a worker whose task ids are read).
    """

    def __init__(
        self, name: str, argv: list[str], env: dict[str, str], *, keep: int | None = 200
    ) -> None:
        self.name = name
        self.keep = keep
        self.lines: list[str] = []
        self.process = subprocess.Popen(  # noqa: S603 (argv of our own programs, never a shell)
            argv,
            env=env,
            cwd=settings.BASE_DIR,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)
            if self.keep is not None and len(self.lines) > self.keep:
                del self.lines[0]

    def text(self) -> str:
        return "".join(self.lines)

    def said(self, text: str) -> bool:
        return any(text in line for line in self.lines)

    def stop(self, seconds: float = 30) -> None:
        """SIGTERM to the whole group (a worker's pool, gunicorn's workers), then SIGKILL."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(seconds)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)

    def failure(self, what: str) -> RuntimeError:
        return RuntimeError(f"{what}; {self.name} said:\n{''.join(self.lines[-40:])}")


def database_url() -> str:
    """This process's database (a bench's throwaway one), as the children's DATABASE_URL."""
    db = connection.settings_dict
    user = quote(db["USER"] or "")
    password = f":{quote(db['PASSWORD'])}" if db.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"


def delete_queues(names: list[str]) -> None:
    """Delete a run's queues and their exchanges, each on its own channel.

    A broker error closes the channel it happened on, so one name never declared (nothing to
    delete) must not keep the others.
    """
    from config.celery import app

    with app.connection_for_write() as conn:
        for name in names:
            channel: Any = conn.channel()  # an amqp Channel; kombu types it as its protocol
            try:
                channel.queue_delete(name)
                channel.exchange_delete(name)
            except Exception:  # nothing declared under that name: nothing to delete
                log.debug("queue %s: nothing to delete", name, exc_info=True)
            finally:
                channel.close()


@contextmanager
def routed_to(queues: dict[str, str]) -> Iterator[None]:
    """This process sends its tasks to the run's queues, declared as the workers declare them
    (the same arguments: the test settings' queues expire)."""
    from config.celery import app
    from config.queues import task_queues

    arguments = settings.CELERY_TASK_QUEUES[0].queue_arguments
    added = task_queues(list(queues.values()), queue_arguments=arguments)
    routes, default = app.conf.task_routes, app.conf.task_default_queue
    for queue in added:
        app.amqp.queues[queue.name] = queue
    app.conf.task_routes = task_routes(
        matches=queues["matches"],
        validation=queues["validation"],
        people=queues["people"],
        ratings=queues["ratings"],
    )
    app.conf.task_default_queue = queues["celery"]
    reroute(app)
    try:
        yield
    finally:
        app.conf.task_routes, app.conf.task_default_queue = routes, default
        reroute(app)
        for queue in added:
            app.amqp.queues.pop(queue.name, None)


def reroute(app: Any) -> None:
    """Make the app's router read its routes again (it keeps the table it was made with, and is
    made once per process: a send before the bench would have sent the bench's to old queues)."""
    app.amqp.flush_routes()
    app.amqp.router = app.amqp.Router()
