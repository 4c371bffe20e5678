"""tests/support/cputime.py: a test's CPU, of its own process and of the processes it reaped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.support.cputime import per_module

ROOT = Path(__file__).resolve().parents[1]

TESTS = """
import subprocess, sys, time

def spin(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass

def test_busy():
    spin(0.3)

def test_starts_a_busy_process():
    subprocess.run([sys.executable, "-c", "import time\\nend = time.process_time() + 0.3\\n"
                    "while time.process_time() < end: pass"], check=True)

def test_idle():
    time.sleep(0.3)  # waits without CPU: the measure must tell this from the others
"""


def test_each_test_s_own_and_children_s_cpu_is_logged(tmp_path: Path) -> None:
    (tmp_path / "test_work.py").write_text(TESTS)
    (tmp_path / "none.ini").write_text("[pytest]\n")
    log = tmp_path / "cpu.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
         "tests.support.cputime", "--cpu-log", str(log), "-c", str(tmp_path / "none.ini"),
         str(tmp_path)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    lines = {json.loads(line)["id"].split("::")[1]: json.loads(line) for line in log.open()}
    assert set(lines) == {"test_busy", "test_starts_a_busy_process", "test_idle"}
    assert lines["test_busy"]["self"] >= 0.25 and lines["test_busy"]["children"] < 0.1
    assert lines["test_starts_a_busy_process"]["children"] >= 0.25
    assert lines["test_idle"]["self"] < 0.1 and lines["test_idle"]["wall"] >= 0.3
    starts = [lines[name]["start"] for name in ("test_busy", "test_starts_a_busy_process")]
    assert starts[0] + 0.25 <= starts[1] <= lines["test_idle"]["start"] <= time.time()
    [(module, own, children, wall, tests)] = per_module(list(lines.values()))
    assert module.endswith("test_work.py") and tests == 3
    assert own >= 0.25 and children >= 0.25 and wall >= 0.9
