"""The Celery app. Workers and beat start with ``celery -A config ...`` (installed: see platform/README.md)."""

import os
from typing import Any

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("backroom")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@signals.task_prerun.connect
@signals.task_postrun.connect
def close_old_connections(sender: Any = None, **_: Any) -> None:
    """At a task's start and end, what Django does at a request's: close a connection that is
    older than CONN_MAX_AGE, broken, or left out of autocommit, and keep the others (settings:
    CELERY_DB_REUSE_MAX). Not for an eager task, run inside its caller's transaction."""
    if getattr(getattr(sender, "request", None), "is_eager", False):
        return
    from django import db

    db.close_old_connections()
