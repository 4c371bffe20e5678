"""Fixtures shared by the whole suite. Tests talk to the real Postgres, RabbitMQ and Redis."""

from __future__ import annotations

import os

from hypothesis import settings

# CI explores the same examples on every run, so that a red build always means a change
# broke something; developers' runs keep exploring new ones.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
