"""Which registered games the platform ships: the tests that check every game ask here, so a game
added to the registry is checked without editing a list.

The test settings register one more game, High Card (tests/support/games/highcard/), which is
never shipped: a check that only a shipped game must pass (the six built-in bots, the import
contracts of pyproject.toml, whose root packages hold no tests) takes :func:`shipped_games`; a
check every game must pass takes every registered game (``games.engine.registry.GAMES``).
"""

from __future__ import annotations

from games.engine.registry import GAMES, ROOT

SHIPPED_FOLDER = ROOT / "games"
NOT_GAMES = frozenset({"engine", "sandbox"})
"""The packages under games/ that are not games."""


def shipped_games() -> list[str]:
    """The registered games whose package is under games/, by name."""
    return sorted(n for n, info in GAMES.items() if info.folder.is_relative_to(SHIPPED_FOLDER))
