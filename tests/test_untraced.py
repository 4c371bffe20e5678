"""tests/support/untraced.py: which tests run untraced, and that the list names real tests."""

from __future__ import annotations

import ast

import pytest

from tests.support import ROOT
from tests.support.untraced import choose, collapsed, function_id, is_listed, listed

pytestmark = pytest.mark.unit


class _Item:
    """What the collection hook reads and marks of a pytest item."""

    def __init__(self, nodeid: str) -> None:
        self.nodeid, self.marks = nodeid, []

    def add_marker(self, mark: pytest.MarkDecorator) -> None:
        self.marks.append(mark.name)


def test_a_test_is_untraced_only_while_each_of_its_lines_is_reached_by_another() -> None:
    reached_by = {
        ("a.py", 1): {"costly", "cheap"},
        ("a.py", 2): {"costly", ""},  # also reached by a setup: setups stay traced
        ("a.py", 3): {"middle", "cheap"},
        ("a.py", 4): {"cheap", "costly"},
    }
    cost = {"costly": 9.0, "middle": 5.0, "cheap": 1.0}
    # costly goes (each of its lines has another reacher); then middle's line 3 has cheap
    # beside it, so middle goes too; cheap is then the last to reach 1, 3 and 4 and stays.
    assert choose(reached_by, cost, least=0.0) == ["costly", "middle"]
    # Below the least cost worth the change, nothing is chosen.
    assert choose(reached_by, cost, least=10.0) == []


def test_a_test_that_alone_reaches_a_line_stays_traced() -> None:
    reached_by = {("a.py", 1): {"costly"}, ("a.py", 2): {"costly", "cheap"}}
    assert choose(reached_by, {"costly": 9.0, "cheap": 1.0}, least=0.0) == ["cheap"]


def test_parameters_are_one_function() -> None:
    assert function_id("tests/x.py::test_y[brexit-390]") == "tests/x.py::test_y"
    assert function_id("tests/x.py::test_y") == "tests/x.py::test_y"


def test_every_listed_test_exists() -> None:
    """A renamed or deleted test would leave a line that untraces nothing."""
    functions: dict[str, set[str]] = {}
    missing = []
    for test in sorted(listed()):
        path, _, name = function_id(test).partition("::")
        if path not in functions:
            module = ROOT / path
            tree = ast.parse(module.read_text()) if module.exists() else ast.Module([], [])
            functions[path] = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        if name not in functions[path]:
            missing.append(test)
    assert not missing, f"tests/support/untraced.txt names tests that are not there: {missing}"


def test_every_case_of_a_listed_test_gets_no_cover_and_no_other_test_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.support.untraced import TRACE_ALL, pytest_collection_modifyitems

    monkeypatch.delenv(TRACE_ALL, raising=False)  # as in a run the list is drawn from

    one = sorted(t for t in listed() if "[" not in t)[0]
    items = [_Item(f"{one}[brexit]"), _Item(one), _Item("tests/x.py::test_not_listed")]
    pytest_collection_modifyitems(items)  # type: ignore[arg-type]
    assert [item.marks for item in items] == [["no_cover"], ["no_cover"], []]


def test_a_listed_case_untraces_that_case_alone() -> None:
    names = {"tests/x.py::test_y[brasilis-390]", "tests/x.py::test_z"}
    assert is_listed("tests/x.py::test_y[brasilis-390]", names)
    assert not is_listed("tests/x.py::test_y[brexit-390]", names)
    assert not is_listed("tests/x.py::test_y", names)
    assert is_listed("tests/x.py::test_z[any]", names)


def test_trace_all_leaves_every_test_traced(monkeypatch: pytest.MonkeyPatch) -> None:
    """The run a list is drawn from traces the listed tests too (BACKROOM_TRACE_ALL)."""
    from tests.support.untraced import TRACE_ALL, pytest_collection_modifyitems

    item = _Item(sorted(listed())[0])
    monkeypatch.setenv(TRACE_ALL, "1")
    pytest_collection_modifyitems([item])  # type: ignore[list-item]
    assert item.marks == []
    monkeypatch.delenv(TRACE_ALL)
    pytest_collection_modifyitems([item])  # type: ignore[list-item]
    assert item.marks == ["no_cover"]


def test_a_function_whose_every_case_is_chosen_is_listed_by_its_name() -> None:
    run = {
        "t.py::test_a[1]",
        "t.py::test_a[2]",
        "t.py::test_b[1]",
        "t.py::test_b[2]",
        "t.py::test_c",
    }
    chosen = {"t.py::test_a[1]", "t.py::test_a[2]", "t.py::test_b[2]", "t.py::test_c"}
    assert collapsed(chosen, run) == {"t.py::test_a", "t.py::test_b[2]", "t.py::test_c"}
