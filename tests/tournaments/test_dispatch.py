"""The services send tasks by name: that must work in a web process, which never imports them."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.support import ROOT

WEB_PROCESS = """
import sys, django
django.setup()
import config.urls  # everything a web process loads
from celery.app.task import Task
assert "tournaments.tasks" not in sys.modules, "the web process imported the tasks already"
sent = []
Task.delay = lambda self, *args: sent.append((self.name, args))  # no broker: only the lookup
from tournaments.play import dispatch
assert dispatch.play_match("m-1") and dispatch.validate_bot_version(7)
print(sent)
"""


def test_a_web_process_sends_tasks_by_name_without_importing_them() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    done = subprocess.run(
        [sys.executable, "-c", WEB_PROCESS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "[('tournaments.play_match', ('m-1',)), ('tournaments.validate_bot_version', (7,))]"
    )
