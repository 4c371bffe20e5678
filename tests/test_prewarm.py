"""tests/support/prewarm.py: the controller of an xdist run keeps every test module rewritten
before its workers start, so that each worker reads the kept copy instead of rewriting."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ROOT
from tests.support.prewarm import kept_copy

pytestmark = pytest.mark.services  # starts pytest

# Imported by each worker before it collects the modules: which of them were kept rewritten then.
CONFTEST = """
import os
from pathlib import Path
from tests.support.prewarm import kept_copy

if os.environ.get("PYTEST_XDIST_WORKER"):
    here = Path(__file__).parent
    kept = sorted(m.name for m in here.glob("test_m*.py") if kept_copy(m).exists())
    (here / ("kept-" + os.environ["PYTEST_XDIST_WORKER"])).write_text(" ".join(kept))
"""


@pytest.mark.parametrize("plugin", ["tests.support.prewarm", None], ids=["prewarmed", "bare"])
def test_the_workers_find_every_test_module_rewritten(tmp_path: Path, plugin: str | None) -> None:
    modules = [tmp_path / f"test_m{n}.py" for n in range(3)]
    for n, module in enumerate(modules):
        module.write_text(f"def test_{n}():\n    assert {n} == {n}\n")
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "none.ini").write_text("[pytest]\n")
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(ROOT)}
    # Not this run's: inside an xdist worker the inner controller would pass for a worker too.
    for name in ("PYTHONDONTWRITEBYTECODE", "PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT"):
        env.pop(name, None)
    plugins = ["-p", plugin] if plugin else []
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "xdist", *plugins,
         "-n", "2", "-c", str(tmp_path / "none.ini"), str(tmp_path)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    seen = {p.name[5:]: p.read_text().split() for p in tmp_path.glob("kept-gw*")}
    assert set(seen) == {"gw0", "gw1"}
    every = sorted(module.name for module in modules)
    if plugin:  # each worker finds all three kept
        assert all(kept == every for kept in seen.values()), seen
    else:  # the first worker to start finds none: it rewrites them all, beside the other
        assert [] in seen.values(), seen
    assert all(kept_copy(module).exists() for module in modules)
