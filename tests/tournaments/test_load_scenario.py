"""The load scenario's users (tournaments/bench/load/locustfile.py) arrive out of step.

locust starts all of ``bench load``'s users at once; had each made its first request at once,
the run's slowest reads would be that instant's queue (docs/reliability.md, Load), not the
steady load the p99 target is about. The scenario runs in a process of its own, as under
``bench load``: importing locust patches the standard library for gevent.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ROOT

pytestmark = pytest.mark.services  # a process of its own (above)

PLAN = {"accounts": [{"token": "t", "bot": 1}], "matches": [], "ladders": []}

FIRST_STEPS = """
import json
from locust.env import Environment
from tournaments.bench.load import locustfile

locustfile.Player.host = "http://127.0.0.1:9"  # never asked: the test stops before a request
user = locustfile.Player(Environment(user_classes=[locustfile.Player]))
waits = []
user.wait = lambda: waits.append(user.wait_time())
user.on_start()
print(json.dumps({"waits": waits, "token": user.client.headers["Authorization"]}))
"""


def test_each_user_thinks_before_its_first_request(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(PLAN))
    done = subprocess.run(
        [sys.executable, "-c", FIRST_STEPS],
        cwd=ROOT,
        env={"BACKROOM_LOAD_PLAN": str(plan), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["token"] == "Token t"
    [wait] = seen["waits"]
    assert 0.5 <= wait <= 1.5  # one think time of the scenario's, before anything is asked
