"""The suite's own parallelism keeps a group on one worker: with pytest 9.2, pytest-xdist 3.8's
``--dist loadgroup`` silently stopped grouping (pytest-dev/pytest-xdist#1386), and each module
that starts the platform's processes, which tests/conftest.py groups, ran on several workers."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

GROUPED = """
import pytest

pytestmark = pytest.mark.xdist_group("together")


@pytest.mark.parametrize("n", range(4))
def test_{name}(n):
    pass
"""


def test_loadgroup_runs_a_group_on_one_worker(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / f"test_{name}.py").write_text(GROUPED.format(name=name))
    (tmp_path / "none.ini").write_text("[pytest]\n")  # not the project's settings
    # Only pytest and xdist, whose pairing is what broke: the other installed plugins (locust,
    # schemathesis, ...) cost each of the three processes seconds of imports (10 s of CPU of
    # the test's 11 with them, 1.6 s without, 2026-12-02).
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "xdist", "-n", "2", "--dist", "loadgroup", "-v",
         "-p", "no:cacheprovider", "-c", str(tmp_path / "none.ini"), str(tmp_path)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:]
    workers = set(re.findall(r"\[(gw\d+)\] \[\s*\d+%\] PASSED", done.stdout))
    assert len(re.findall(r"PASSED", done.stdout)) == 8
    assert len(workers) == 1, done.stdout[-2000:]


def test_hypothesis_is_never_timed_and_ci_draws_the_same_examples() -> None:
    from hypothesis import HealthCheck, settings

    # A deadline or the too-slow check fails a test for the machine's load, not for a change.
    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check
    assert settings.default.derandomize == bool(os.environ.get("CI"))
    assert 'export CI="${CI:-1}"' in (Path(__file__).parents[1] / ".ci" / "run").read_text()
