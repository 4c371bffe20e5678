"""The short fuzzing run: every API operation, anonymous and with a token, on a live server.

The long run is this test with ``FUZZ_EXAMPLES=200``, or ``manage.py fuzz URL`` against a
development server (docs/reliability.md). Here the server is pytest-django's
live server on loopback over the test database, with a ladder, a season, a finished match and a
running one to find, and the workers' tasks recorded instead of sent.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.api.conftest import Enqueued
from tests.viewer.conftest import play, running_copy
from tournaments.models import Ladder, Season

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture
def world(enqueued: Enqueued) -> None:
    Ladder.objects.create(name="brexit ladder", game="brexit", seats=3)
    Season.objects.create(name="brexit season", game="brexit", seats=3, state="running")
    finished = play("brexit", 3, None, seed=5)
    running_copy(finished, finished.last_version // 2)


def test_no_operation_answers_5xx_or_breaks_the_schema(world: None, live_server: Any) -> None:
    # A few cases per operation, role and mode here; FUZZ_EXAMPLES=200 for the long run.
    examples = os.environ.get("FUZZ_EXAMPLES", "3")
    out = io.StringIO()
    with contextlib.suppress(CommandError):  # the figures below say what failed
        call_command("fuzz", live_server.url, "--examples", examples, "--seed", "1", stdout=out)
    figures = json.loads(out.getvalue())
    print(json.dumps({k: v for k, v in figures.items() if k != "details"}))
    assert figures["operations"] >= 25
    assert figures["failures"] == {}, json.dumps(figures, indent=1)
    assert figures["server_errors"] == 0 and figures["schema_violations"] == 0
