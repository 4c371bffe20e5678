"""The Celery app. Workers and beat start with ``celery -A config ...`` (installed: see platform/README.md)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("backroom")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
