"""docs/ab-tests.md's worked example prints what the page shows, and every ``bench sprt``
command docs/ab-tests.md and docs/benchmarks.md show runs (at its quick size)."""

from __future__ import annotations

import contextlib
import re
import shlex
from io import StringIO
from pathlib import Path

import pytest

from tests.support.benches import bench_json

# The quick runs once with test_sprt_bench.py, which asks for the same `bench sprt --quick`.
pytestmark = pytest.mark.xdist_group("bench-sprt-quick")

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_worked_example_prints_what_the_page_shows() -> None:
    text = (DOCS / "ab-tests.md").read_text()
    [code] = re.findall(r"```python\n(.*?)```", text, re.S)
    [shown] = re.findall(r"prints\n\n```\n(.*?)```", text, re.S)
    out = StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/ab-tests.md", "exec"), {})  # noqa: S102 (the page's own example)
    assert out.getvalue() == shown


def documented_commands() -> list[str]:
    found: list[str] = []
    for doc in ("ab-tests.md", "benchmarks.md"):
        for command in re.findall(
            r"python manage\.py (bench sprt[^`\n]*)", (DOCS / doc).read_text()
        ):
            if command.strip() not in found:
                found.append(command.strip())
    return found


def test_the_docs_show_the_bench() -> None:
    assert "bench sprt" in documented_commands()


@pytest.mark.parametrize("command", documented_commands())
def test_each_documented_bench_sprt_command_runs(command: str) -> None:
    args = shlex.split(command)
    figures = bench_json(*args, "--quick")
    asked_tests = int(args[args.index("--tests") + 1]) if "--tests" in args else 200
    assert figures["tests_per_point"] == min(asked_tests, 200)
    if "--draw-ratio" in args:
        assert figures["draw_ratio"] == float(args[args.index("--draw-ratio") + 1])
    asked = [a.split(":") for a, flag in zip(args[1:], args, strict=False) if flag == "--twins"]
    if "--no-twins" in args:
        assert figures["duplicate"] == {}
    elif asked:
        played = [(d["candidate"], d["baseline"]) for d in figures["duplicate"].values()]
        assert played == [(candidate, baseline) for _, candidate, baseline, _ in asked]
