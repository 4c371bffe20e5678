"""Makes ``@pytest.mark.no_cover`` untraced under pytest-xdist too (a plugin of the suite's).

pytest-cov 7 reads ``-n`` among a worker's own arguments and so starts a master's coverage in each
xdist worker before the worker's (``pytest_load_initial_conftests``), then the worker's at
``pytest_sessionstart``, which coverage stacks on top of the first. A ``no_cover`` test pauses the
worker's and coverage resumes the one below: the test is traced all the same (``test_builtin_bots``'
unsteered states: 9.2 s of CPU untraced, 21.4 s "not covered", 2026-12-03), into data that is never
saved (the worker's master coverage is never stopped, nor written). Stopped here before the worker's
starts, it leaves nothing below. It had seen only the worker's start (the conftests' imports), which
the master process's coverage, the one that combines and reports, sees as well.
"""

from __future__ import annotations

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    if getattr(session.config, "workerinput", None) is None:
        return
    plugin = session.config.pluginmanager.get_plugin("_cov")
    controller = getattr(plugin, "cov_controller", None)
    if controller is not None:
        controller.cov.stop()
