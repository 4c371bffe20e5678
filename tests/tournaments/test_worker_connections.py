"""A worker keeps its Postgres connection from task to task (settings CELERY_DB_REUSE_MAX and
config/celery.py): a connection per task cost a played ladder match 27 of its 29 ms of the
server's CPU (`bench pgserver`). A task boundary still closes what a request's end closes."""

from __future__ import annotations

import time

import pytest
from celery import signals
from celery.fixups.django import DjangoWorkerFixup
from django.db import connection

from config.celery import app
from tournaments.tasks import update_ratings

pytestmark = pytest.mark.django_db(transaction=True)


def _backend() -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        row = cur.fetchone()
    assert row is not None
    return int(row[0])


def test_celerys_django_fixup_keeps_the_connection_across_tasks() -> None:
    fixup = DjangoWorkerFixup(app)  # what a worker installs; its signal handlers called directly
    pid = _backend()
    for _ in range(3):
        fixup.on_task_prerun(sender=update_ratings)
        fixup.on_task_postrun(sender=update_ratings)
        assert connection.connection is not None, "the fixup closed the connection"
    assert _backend() == pid


def test_a_task_boundary_keeps_a_fresh_connection_and_closes_an_old_one() -> None:
    pid = _backend()
    signals.task_postrun.send(sender=update_ratings)
    assert _backend() == pid
    connection.close_at = time.monotonic() - 1  # past CONN_MAX_AGE
    signals.task_prerun.send(sender=update_ratings)
    assert connection.connection is None
    assert _backend() != pid
