"""The run's test modules are rewritten once, by the controller, before pytest-xdist's workers start.

pytest rewrites each test module's asserts at import and keeps the result beside it
(``__pycache__/*-pytest-*.pyc``). On a fresh clone there is none yet, and every xdist worker
collects every module at the same moment, so each of the six rewrote all of them: about 6.5 s of
CPU a worker, 40 s of the run's two cores before its first test (2026-12-03: a collection took
9.5 s from a fresh clone and 3.3 s once the rewritten modules were kept). Here the controller
rewrites them first, on both cores, and the workers find them kept. It does what pytest's
``AssertionRewritingHook.exec_module`` does for a module it finds no kept copy of, so the copies
are the ones a worker would have written, and a worker still checks each against its source.
"""

from __future__ import annotations

import fnmatch
import multiprocessing
import os
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from _pytest.assertion.rewrite import (
    PYC_TAIL,
    _read_pyc,
    _rewrite_test,
    _write_pyc,
    assertstate_key,
    get_cache_dir,
    try_makedirs,
)

_config: pytest.Config | None = None  # the forked processes' (set before the pool forks)


def kept_copy(module: Path) -> Path:
    """Where pytest keeps ``module`` rewritten."""
    return get_cache_dir(module) / (module.name[:-3] + PYC_TAIL)


def test_modules(config: pytest.Config) -> Iterator[Path]:
    """The modules the run's arguments name that pytest would rewrite as test modules."""
    patterns = [*config.getini("python_files"), "conftest.py"]
    for argument in config.args:
        path = Path(argument.split("::")[0])
        path = path if path.is_absolute() else config.invocation_params.dir / path
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for file in files:
            if any(fnmatch.fnmatch(file.name, pattern) for pattern in patterns):
                yield file


def rewrite(module: Path) -> bool:
    """``module`` rewritten and kept, unless a copy of its present source is kept already."""
    assert _config is not None
    state = _config.stash[assertstate_key]
    pyc = kept_copy(module)
    if _read_pyc(module, pyc, state.trace) is not None:
        return False
    source_stat, code = _rewrite_test(module, _config)
    return try_makedirs(pyc.parent) and _write_pyc(state, code, source_stat, pyc)


def prewarm(config: pytest.Config, workers: int) -> int:
    """Rewrites the run's test modules on ``workers`` processes; returns how many were written."""
    global _config
    _config = config
    modules = sorted(set(test_modules(config)))
    if workers <= 1 or len(modules) < 2:
        return sum(rewrite(module) for module in modules)
    # fork: the children inherit the configuration (the rewrite reads it), not a pickled copy.
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        return sum(pool.map(rewrite, modules, chunksize=8))


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """In the controller of an xdist run only (xdist starts its workers after this hook)."""
    config = session.config
    if sys.dont_write_bytecode or getattr(config, "workerinput", None) is not None:
        return
    if not config.pluginmanager.has_plugin("dsession"):
        return  # no workers: the one process rewrites what it collects, once
    if config.getoption("assertmode") != "rewrite":
        return
    prewarm(config, workers=min(2, os.cpu_count() or 1))
