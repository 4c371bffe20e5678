"""The rules layer is pure: games.engine and every registered game are plain data and functions.

Every game the registry knows is checked, High Card too (tests/support/games/highcard/, registered
by the test settings): it stands for a game written only as "Adding a game" in docs/architecture.md
says, and the runner, the API and the viewer run its rules as they run a shipped game's.

games/ also holds the sandbox (games/sandbox/), which spawns processes, reads the environment and
loads libseccomp through ctypes; the rules never import it (an import-linter contract says the same).
No module of games/, sandbox included, imports Django, the other apps or the database driver.
"""

from __future__ import annotations

import ast
from pathlib import Path

from games.engine.registry import GAMES as REGISTERED
from games.engine.registry import ROOT

GAMES = ROOT / "games"
PURE = [GAMES / "engine", *(info.folder for info in REGISTERED.values())]
FRAMEWORK = {"django", "rest_framework", "celery", "replays", "tournaments", "psycopg", "config"}
# What makes the sandbox impure: other programs, the environment and the host, C libraries.
# (simulate.py may fan the same pure games out over worker processes: multiprocessing stays.)
HOST = {"os", "subprocess", "ctypes", "socket", "signal", "resource", "pwd", "fcntl", "shutil"}


def imported(path: Path) -> set[str]:
    """Every absolute module name the file imports, with each of its parents."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        else:
            continue
        for module in modules:
            parts = module.split(".")
            names.update(".".join(parts[: i + 1]) for i in range(len(parts)))
    return names


def offenders(folders: list[Path], forbidden: set[str]) -> dict[str, list[str]]:
    found = {
        str(path.relative_to(ROOT)): sorted(imported(path) & forbidden)
        for folder in folders
        for path in folder.rglob("*.py")
    }
    return {name: mods for name, mods in found.items() if mods}


def test_no_module_under_games_imports_the_framework() -> None:
    assert offenders([GAMES], FRAMEWORK) == {}


def test_the_rules_use_neither_the_sandbox_nor_the_host() -> None:
    assert all(folder.is_dir() for folder in PURE)
    assert {"brexit", "brasilis", "highcard"} <= {folder.name for folder in PURE}
    assert offenders(PURE, FRAMEWORK | HOST | {"games.sandbox"}) == {}


def test_the_check_sees_the_sandbox_as_impure() -> None:
    # The same check over the sandbox finds what the rules must not do: the check can fail.
    found = offenders([GAMES / "sandbox"], HOST | {"games.sandbox"})
    assert {"os", "subprocess", "ctypes"} <= {m for mods in found.values() for m in mods}
