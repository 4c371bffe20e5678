"""The games the platform knows, by name, with their seat counts.

Rules are imported lazily so that importing the registry stays cheap and a
game's import error names that game.
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
    min_seats: int
    max_seats: int
    official_seats: tuple[int, int]
    rules_module: str
    random_player_module: str

    @cached_property
    def rules(self) -> Rules[Any]:
        return importlib.import_module(self.rules_module).RULES  # type: ignore[no-any-return]

    @cached_property
    def random_player(self) -> Player:
        return importlib.import_module(self.random_player_module).act  # type: ignore[no-any-return]


GAMES: dict[str, GameInfo] = {
    "brexit": GameInfo(
        name="brexit",
        title="Brexit: The Real Deal",
        min_seats=2,  # B-21: 2 is allowed as an unofficial option
        max_seats=5,
        official_seats=(3, 5),
        rules_module="games.brexit.rules",
        random_player_module="games.brexit.bots.random_legal",
    ),
    "brasilis": GameInfo(
        name="brasilis",
        title="Bra$ilis",
        min_seats=3,
        max_seats=6,
        official_seats=(3, 6),
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
