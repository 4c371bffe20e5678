"""tests/support/no_cover.py: a ``no_cover`` test runs untraced in an xdist worker, and the rest
of the worker's tests are still measured."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

TESTS = """
import sys
import pytest
import covered

@pytest.mark.no_cover
def test_untraced():
    assert sys.gettrace() is None, sys.gettrace()

def test_traced():
    assert sys.gettrace() is not None
    assert covered.double(2) == 4
"""


@pytest.mark.services
@pytest.mark.parametrize("plugin", ["tests.support.no_cover", None], ids=["fixed", "bare"])
def test_a_no_cover_test_is_untraced_in_an_xdist_worker(tmp_path: Path, plugin: str | None) -> None:
    (tmp_path / "test_marks.py").write_text(TESTS)
    (tmp_path / "covered.py").write_text("def double(n):\n    return 2 * n\n")
    (tmp_path / "none.ini").write_text("[pytest]\n")
    plugins = ["-p", plugin] if plugin else []
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "xdist",
         "-p", "pytest_cov", *plugins, "-n", "1", "--cov=covered", "--cov-report=term",
         "-c", str(tmp_path / "none.ini"), str(tmp_path)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    if plugin is None:  # pytest-cov alone: the worker's other coverage traces the test
        assert done.returncode == 1 and "test_untraced" in done.stdout, (
            "pytest-cov no longer traces a no_cover test in a worker: tests/support/no_cover.py "
            "can go\n" + done.stdout[-2000:]
        )
        return
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "covered.py" in done.stdout and "100%" in done.stdout, done.stdout[-2000:]
