"""games/brexit/cards.py exports only what the engine, its bots, the replays or tests read."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CARDS = ROOT / "games" / "brexit" / "cards.py"


def _loads(tree: ast.AST) -> set[str]:
    """Names read in ``tree``; ``X[k] = v`` only fills X, so it is not a read of X."""
    filled = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store)
    }
    return {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in filled
    }


def _exported() -> set[str]:
    tree = ast.parse(CARDS.read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        names |= {t.id for t in targets if isinstance(t, ast.Name) and not t.id.startswith("_")}
    return names


def _used_elsewhere() -> set[str]:
    used = set()
    # replays/ draws boards and narrates with the cards' names.
    dirs = [ROOT / "games", ROOT / "replays", ROOT / "tests" / "games"]
    for path in [p for d in dirs for p in d.rglob("*.py")]:
        if path == CARDS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {
            alias.asname or alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module == "games.brexit.cards"
            for alias in node.names
        }
        used |= imported & _loads(tree)
    return used


def test_every_card_table_is_read_somewhere() -> None:
    own = _loads(ast.parse(CARDS.read_text(encoding="utf-8")))
    assert sorted(_exported() - own - _used_elsewhere()) == []
