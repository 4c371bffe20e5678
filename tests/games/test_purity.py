"""games/ is pure rules: nothing in it imports Django, the other apps or the database driver."""

from __future__ import annotations

import ast
from pathlib import Path

GAMES = Path(__file__).resolve().parents[2] / "games"
FORBIDDEN = {"django", "rest_framework", "celery", "replays", "tournaments", "psycopg", "config"}


def imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_no_module_under_games_imports_the_framework() -> None:
    offenders = {
        str(path.relative_to(GAMES)): sorted(imported_roots(path) & FORBIDDEN)
        for path in GAMES.rglob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}
