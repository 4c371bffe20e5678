"""The import graph of the project's packages has no cycle at all.

The graph is grimp's (the one import-linter checks its contracts on), so it counts every import:
inside functions and under TYPE_CHECKING too, since an import hidden in a function is still a cycle.
"""

from __future__ import annotations

from collections.abc import Iterator

import grimp
import pytest

PACKAGES = ("games", "replays", "tournaments", "config")


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(*PACKAGES, include_external_packages=False, cache_dir=None)


def tangles(graph: grimp.ImportGraph) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    work: list[tuple[str, Iterator[str]]] = []  # the depth-first path, each with what is left

    def enter(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        work.append((module, iter(sorted(graph.find_modules_directly_imported_by(module)))))

    for root in sorted(graph.modules):
        if root in index:
            continue
        enter(root)
        while work:
            module, imported = work[-1]
            step = next(imported, None)
            if step is not None:
                if step not in index:
                    enter(step)
                elif step in on_stack:
                    low[module] = min(low[module], index[step])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[module])
            if low[module] == index[module]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == module:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def describe(graph: grimp.ImportGraph, component: set[str]) -> str:
    """Each import inside one tangle, with the line that makes it."""
    lines = []
    for importer in sorted(component):
        for imported in sorted(graph.find_modules_directly_imported_by(importer) & component):
            for detail in graph.get_import_details(importer=importer, imported=imported):
                lines.append(
                    f"  {importer} -> {imported} (line {detail['line_number']}: "
                    f"{detail['line_contents'].strip()})"
                )
    return "cycle among " + ", ".join(sorted(component)) + ":\n" + "\n".join(lines)


def test_tangles_finds_a_cycle_and_only_the_cycle() -> None:
    graph = grimp.ImportGraph()
    for module in ("pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.d"):
        graph.add_module(module)
    graph.add_import(importer="pkg.a", imported="pkg.b")
    graph.add_import(importer="pkg.b", imported="pkg.c")
    graph.add_import(importer="pkg.c", imported="pkg.a")
    graph.add_import(importer="pkg.c", imported="pkg.d")
    assert tangles(graph) == [{"pkg.a", "pkg.b", "pkg.c"}]


def test_no_import_cycles(graph: grimp.ImportGraph) -> None:
    found = tangles(graph)
    assert not found, "\n\n".join(describe(graph, component) for component in found)
