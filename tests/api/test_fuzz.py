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
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.api.conftest import Enqueued
from tests.viewer.conftest import play, running_copy
from tournaments.competition.models import Ladder, Season

pytestmark = [pytest.mark.django_db(transaction=True)]

DOCS = Path(__file__).resolve().parents[2] / "docs" / "api.md"


@pytest.fixture
def world(enqueued: Enqueued) -> None:
    Ladder.objects.create(name="brexit ladder", game="brexit", seats=3)
    Season.objects.create(name="brexit season", game="brexit", seats=3, state="running")
    finished = play("brexit", 3, None, seed=5)
    running_copy(finished, finished.last_version // 2)


def documented_command() -> list[str]:
    """The arguments after `manage.py fuzz` in docs/api.md."""
    for line in DOCS.read_text().splitlines():
        for code in re.findall(r"`([^`]*manage\.py fuzz[^`]*)`", line):
            words = shlex.split(code)
            return words[words.index("fuzz") + 1 :]
    raise AssertionError("docs/api.md shows no `manage.py fuzz` command")


SHARDS = 4
"""The suite's parallel workers share the operations (``--shard K/N``): one run of them all took
105 s of wall on an idle machine and passed its 300-s limit beside another suite."""


@pytest.mark.parametrize("shard", range(SHARDS))
def test_no_operation_answers_5xx_or_breaks_the_schema(
    world: None, live_server: Any, shard: int
) -> None:
    # The documented command, on the live server, with a few cases per operation, role and mode
    # (FUZZ_EXAMPLES=200 for the long run), this shard's operations.
    args = documented_command()
    assert args[0].startswith("http://127.0.0.1:") and args[1] == "--examples"
    args[0], args[2] = live_server.url, os.environ.get("FUZZ_EXAMPLES", "3")
    out = io.StringIO()
    with contextlib.suppress(CommandError):  # the figures below say what failed
        call_command("fuzz", *args, "--seed", "1", "--shard", f"{shard}/{SHARDS}", stdout=out)
    figures = json.loads(out.getvalue())
    print(json.dumps({k: v for k, v in figures.items() if k != "details"}))
    assert figures["schema_operations"] >= 25
    assert figures["operations"] == len(range(shard, figures["schema_operations"], SHARDS))
    assert figures["failures"] == {}, json.dumps(figures, indent=1)
    assert figures["server_errors"] == 0 and figures["schema_violations"] == 0


@pytest.mark.parametrize("shard", ["4/4", "5/4", "1", "a/b"])
def test_a_shard_outside_its_count_is_refused(shard: str) -> None:
    with pytest.raises(CommandError, match="K/N"):
        call_command("fuzz", "http://127.0.0.1:9", "--shard", shard)
