"""The Bra$ilis modules import each other without a cycle, and only at the top of a module.

Phases hand over through the one dispatcher (games/brasilis/flow.py); an import
inside a function is how a cycle between phases would hide, so none is allowed.
"""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parents[3] / "games" / "brasilis"


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(node: ast.AST) -> list[str]:
    """games.brasilis modules named by the import statements directly under ``node``."""
    found = []
    for stmt in ast.walk(node):
        if isinstance(stmt, ast.ImportFrom) and stmt.module and stmt.level == 0:
            base = stmt.module
            if base == "games.brasilis" or base == "games.brasilis.bots":
                found.extend(f"{base}.{alias.name}" for alias in stmt.names)
            elif base.startswith("games.brasilis."):
                found.append(base)
        elif isinstance(stmt, ast.Import):
            found.extend(a.name for a in stmt.names if a.name.startswith("games.brasilis."))
    return found


def graph(package: Path) -> tuple[dict[str, set[str]], list[str]]:
    """The import graph of ``package`` and the imports found inside functions."""
    edges: dict[str, set[str]] = {}
    nested: list[str] = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        name = _module(path)
        edges[name] = set(_imports(tree))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                nested.extend(f"{name}.{node.name} imports {m}" for m in _imports(node))
    return edges, nested


def test_no_brasilis_import_inside_a_function():
    _, nested = graph(PACKAGE)
    assert nested == []


def test_brasilis_import_graph_has_no_cycle():
    edges, _ = graph(PACKAGE)
    try:
        tuple(TopologicalSorter(edges).static_order())
    except CycleError as cycle:  # pragma: no cover - the failure message
        pytest.fail(f"import cycle: {' -> '.join(cycle.args[1])}")


def test_only_the_dispatcher_imports_the_phases():
    edges, _ = graph(PACKAGE)
    phases = {f"games.brasilis.{p}" for p in ("pizza", "auction", "dispute", "attribution")}
    for module, imported in edges.items():
        if module in phases:
            assert not imported & phases, f"{module} calls another phase"
