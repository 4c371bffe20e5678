"""The games the platform knows, by name.

Rules are imported lazily so that importing the registry stays cheap and a
game's import error names that game. Facts about a game (its seat counts) are
its ``Rules``' own; the registry only finds them.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from games.engine.match import Player
from games.engine.rules import Rules


@dataclass(frozen=True)
class GameInfo:
    name: str
    title: str
    rules_module: str
    random_player_module: str

    @cached_property
    def rules(self) -> Rules[Any]:
        return importlib.import_module(self.rules_module).RULES  # type: ignore[no-any-return]

    @property
    def min_seats(self) -> int:
        return self.rules.min_seats

    @property
    def max_seats(self) -> int:
        return self.rules.max_seats

    @cached_property
    def random_player(self) -> Player:
        return importlib.import_module(self.random_player_module).act  # type: ignore[no-any-return]


GAMES: dict[str, GameInfo] = {
    "brexit": GameInfo(
        name="brexit",
        title="Brexit: The Real Deal",
        rules_module="games.brexit.rules",
        random_player_module="games.brexit.bots.random_legal",
    ),
    "brasilis": GameInfo(
        name="brasilis",
        title="Bra$ilis",
        rules_module="games.brasilis.rules",
        random_player_module="games.brasilis.bots.random_legal",
    ),
}


def get(name: str) -> GameInfo:
    """The game called ``name``; raises KeyError naming the known games."""
    try:
        return GAMES[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))}") from None
