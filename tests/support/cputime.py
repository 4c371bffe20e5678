"""Where the suite's CPU goes: each test's CPU seconds, of its own process and of the processes
it started and reaped, as JSON lines (a plugin loaded on demand, never by default).

``make test`` is nearly CPU-bound on two cores: a fresh clone's ``.ci/run`` used 17.7 min of CPU
(user and sys, 2026-12-02, under load 10-16), and takes 10 min on an idle machine, when the two
cores give 20. A test's wall time under xdist then says little about its cost; its CPU does::

    PYTEST_ARGS="-p tests.support.cputime --cpu-log var/cpu.jsonl" make test
    python -m tests.support.cputime var/cpu.jsonl     # per module, costliest first

A process killed with its group (a worker stopped by the harness) is counted only when reaped:
its children's CPU may be missing, so read "children" as a floor.
"""

from __future__ import annotations

import collections
import json
import resource
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--cpu-log", default=None, help="append each test's CPU seconds here")


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    log = item.config.getoption("--cpu-log")
    own, children = _cpu()
    started, began = time.monotonic(), time.time()
    yield
    if log is None:
        return
    own_after, children_after = _cpu()
    line = {
        "id": item.nodeid,
        "self": round(own_after - own, 3),
        "children": round(children_after - children, 3),
        "wall": round(time.monotonic() - started, 3),
        "start": round(began, 3),  # when, so that a run's timeline can be drawn (idle tails)
    }
    with Path(log).open("a") as out:  # one short line per write: the xdist workers' interleave
        out.write(json.dumps(line) + "\n")


def per_module(lines: list[dict[str, object]]) -> list[tuple[str, float, float, float, int]]:
    """(module, own CPU, children's CPU, wall, tests), costliest in CPU first."""
    sums: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for line in lines:
        module = str(line["id"]).split("::")[0]
        row = sums[module]
        for i, key in enumerate(("self", "children", "wall")):
            row[i] += float(line[key])  # type: ignore[arg-type]
        row[3] += 1
    rows = [(m, s, c, w, int(n)) for m, (s, c, w, n) in sums.items()]
    return sorted(rows, key=lambda r: -(r[1] + r[2]))


if __name__ == "__main__":
    rows = per_module([json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines()])
    print(f"{'own s':>8} {'children s':>10} {'wall s':>8} {'tests':>5}  module")
    for module, own, children, wall, tests in rows:
        print(f"{own:8.1f} {children:10.1f} {wall:8.1f} {tests:5d}  {module}")
    total = [sum(r[i] for r in rows) for i in (1, 2, 3)]  # type: ignore[misc]
    print(f"{total[0]:8.1f} {total[1]:10.1f} {total[2]:8.1f} {'':5}  total")
