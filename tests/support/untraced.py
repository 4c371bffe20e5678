"""Tests that run untraced by coverage: their lines are all reached by traced tests too.

Coverage's tracer (Python 3.11 has no cheaper one) cost a third more CPU in the suite's own
process (three modules, 2026-12-03: 47.2 s traced, 35.2 s not), and ``make test`` is CPU-bound
on two cores. A test listed in ``untraced.txt`` beside this module gets pytest-cov's
``no_cover`` mark (its call is not traced; its fixtures still are), so the run costs less and
reports the same lines: a test is listed only if every line its call reaches is reached by a
traced test's call or by any test's setup or teardown. A line names a test function (all its
cases) or one case (``test_y[brasilis-390]``): of a parametrized test, the costly cases may go
while a cheap one keeps the lines they share traced. The list is drawn from a run that records
who reached each case's lines, costliest cases first::

    BACKROOM_TRACE_ALL=1 .venv/bin/pytest -n 6 --dist loadgroup --cov --cov-context=test \\
        --cov-report= -p tests.support.cputime --cpu-log var/cpu.jsonl
    .venv/bin/python -m tests.support.untraced .coverage var/cpu.jsonl > tests/support/untraced.txt

``BACKROOM_TRACE_ALL=1`` traces the listed tests too, so the list is drawn afresh: a costly test
that alone reached a line only because a cheap listed one ran untraced goes, and the cheap one
stays. Drawn from a run without it, the listed tests cannot be judged and stay listed. A test
added since is traced; a listed test that changes may come to reach a line no traced test does,
which the coverage floor would then miss: draw the list again when the floor moves.
"""

from __future__ import annotations

import collections
import json
import os
import re
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

LIST = Path(__file__).with_name("untraced.txt")

# A test's coverage context is ``<node id>|setup``, ``|run`` or ``|teardown`` (pytest-cov).
_PHASE = re.compile(r"\|(setup|run|teardown)$")


def function_id(node_id: str) -> str:
    """A test's id without its parameters: a listed function names all its cases."""
    return node_id.split("[", 1)[0]


def is_listed(node_id: str, names: set[str]) -> bool:
    """Whether a collected test (a case's id) is listed, by its case or by its function."""
    return node_id in names or function_id(node_id) in names


def listed(path: Path = LIST) -> set[str]:
    lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return {line for line in lines if line}


TRACE_ALL = "BACKROOM_TRACE_ALL"
"""Set (to anything but empty), the list is ignored and every test traced: a run to draw it from."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if os.environ.get(TRACE_ALL):
        return
    names = listed()
    for item in items:
        if is_listed(item.nodeid, names):
            item.add_marker(pytest.mark.no_cover)


def choose(
    reached_by: dict[tuple[str, int], set[str]], cost: dict[str, float], least: float
) -> list[str]:
    """Tests (cases) to untrace, costliest first, so that every line stays reached by one left.

    ``reached_by`` maps a line to who reached it: tests' calls, or ``""`` for what a call did not
    reach (a setup, a teardown, an import at collection), which always stays.
    """
    lines_of: dict[str, list[tuple[str, int]]] = collections.defaultdict(list)
    reached = {line: len(who) for line, who in reached_by.items()}
    for line, who in reached_by.items():
        for test in who:
            if test:
                lines_of[test].append(line)
    chosen = []
    for test in sorted(lines_of, key=lambda t: (-cost.get(t, 0.0), t)):
        if cost.get(test, 0.0) < least:
            break
        if all(reached[line] > 1 for line in lines_of[test]):
            chosen.append(test)
            for line in lines_of[test]:
                reached[line] -= 1
    return chosen


def reached_by_from(coverage_file: str) -> dict[tuple[str, int], set[str]]:
    from coverage import CoverageData

    data = CoverageData(coverage_file)
    data.read()
    reached: dict[tuple[str, int], set[str]] = {}
    for file in data.measured_files():
        for line, contexts in data.contexts_by_lineno(file).items():
            who = set()
            for context in contexts:
                match = _PHASE.search(context)
                who.add(context[: match.start()] if match and match[1] == "run" else "")
            reached[(file, line)] = who
    return reached


def costs_from(cpu_log: str) -> dict[str, float]:
    cost: dict[str, float] = collections.defaultdict(float)
    for line in Path(cpu_log).read_text().splitlines():
        record = json.loads(line)
        cost[record["id"].split("@", 1)[0]] += record["self"]  # "@": pytest-xdist's group
    return cost


def collapsed(chosen: set[str], run: set[str]) -> set[str]:
    """``chosen`` with a function named in place of its cases where every case the run ran is
    chosen (a shorter list, and a case added later goes untraced with its siblings)."""
    cases: dict[str, set[str]] = collections.defaultdict(set)
    for test in run:
        cases[function_id(test)].add(test)
    out = set()
    for test in chosen:
        function = function_id(test)
        out.add(function if cases[function] <= chosen else test)
    return out


def main(arguments: Iterable[str]) -> None:
    coverage_file, cpu_log, *rest = arguments
    # A case as cheap as 20 ms is worth untracing: there are hundreds (2026-12-04, drawn with
    # BACKROOM_TRACE_ALL: 1,141 cases and 364 s of traced CPU at 0.02, 617 and 338 s at 0.1).
    least = float(rest[0]) if rest else 0.02
    cost = costs_from(cpu_log)
    reached_by = reached_by_from(coverage_file)
    chosen = choose(reached_by, cost, least)
    # A run that traced a listed test (BACKROOM_TRACE_ALL) judged every test: the list is new.
    traced, names = {test for who in reached_by.values() for test in who}, listed()
    kept = set() if any(is_listed(test, names) for test in traced) else names
    more = "" if not kept else " more"
    print(f"# drawn by tests/support/untraced.py: {len(chosen)} tests (cases){more}, ", end="")
    print(f"{sum(cost[t] for t in chosen):.0f} s of traced CPU in the run it was drawn from")
    for test in sorted(kept | collapsed(set(chosen), set(cost))):
        print(test)


if __name__ == "__main__":
    main(sys.argv[1:])
