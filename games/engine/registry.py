"""The games the platform knows, by name: the one place that finds everything about a game.

A game is one package (``GameInfo.package``), laid out by convention:

- ``rules.py``: ``RULES``, the game's :class:`~games.engine.rules.Rules`;
- ``bots/__init__.py``: ``BUILTIN``, its built-in bots (name -> module; ``random`` is
  required: validation's smoke match seats it);
- ``view/__init__.py``: ``VIEW``, its :class:`~games.engine.view.GameView` (board,
  sentences, seat labels, a person's controls);
- ``templates/board.html``: its board, which the site's templates name ``<name>/board.html``;
- ``static/styles.css`` (optional): its board's styles, which the site names ``<name>/styles.css``;
- its rules as Markdown (``rules_doc``), which the site shows at /docs/<name>/.

Everything is imported lazily, by module path, so that importing the registry stays
cheap, imports no game, and a game's import error names that game. Facts about a game
(its seat counts) are its ``Rules``' own; the registry only finds them. The shipped games
are listed in :data:`GAMES`; another (a test's game) is added by :func:`register`.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from games.engine.match import Player
from games.engine.rules import Rules
from games.engine.view import GameView, join

ROOT = Path(__file__).resolve().parents[2]
"""The project's folder (the one holding games/ and docs/)."""
SUMMARY_HEADING = "## The game in one paragraph"
"""The heading of the section of a game's rules doc that the site's Rules panel shows."""


@dataclass(frozen=True)
class GameInfo:
    name: str
    title: str
    package: str
    """The game's package, e.g. ``games.brexit``: everything else is found in it."""
    blurb: str = ""
    """One paragraph the home page shows under the title."""
    rules_doc: str = ""
    """The rules as Markdown, a path from :data:`ROOT`; by default ``rules.md`` in the package."""

    @cached_property
    def rules(self) -> Rules[Any]:
        return self._attribute("rules", "RULES")  # type: ignore[no-any-return]

    @property
    def min_seats(self) -> int:
        return self.rules.min_seats

    @property
    def max_seats(self) -> int:
        return self.rules.max_seats

    @cached_property
    def builtin_bots(self) -> dict[str, str]:
        """The built-in bots this game offers: name -> module (``act``, and ``make`` if tunable)."""
        return dict(self._attribute("bots", "BUILTIN"))

    @cached_property
    def random_player(self) -> Player:
        return importlib.import_module(self.builtin_bots["random"]).act  # type: ignore[no-any-return]

    @cached_property
    def view(self) -> GameView:
        return self._attribute("view", "VIEW")  # type: ignore[no-any-return]

    @cached_property
    def folder(self) -> Path:
        """The package's folder, found without importing the package."""
        spec = importlib.util.find_spec(self.package)
        if spec is None or not spec.submodule_search_locations:
            raise ModuleNotFoundError(f"game {self.name!r}: no package {self.package!r}")
        return Path(next(iter(spec.submodule_search_locations)))

    @property
    def templates(self) -> Path:
        """The folder of the game's templates (the site names them ``<name>/<file>``)."""
        return self.folder / "templates"

    @property
    def board_template(self) -> str:
        return f"{self.name}/board.html"

    @property
    def static(self) -> Path:
        """The folder of the game's static files (the site names them ``<name>/<file>``)."""
        return self.folder / "static"

    @cached_property
    def styles(self) -> str:
        """The game's stylesheet as the site names it (``""`` if the game has none): its board's
        look, and its accent on the home page."""
        return f"{self.name}/styles.css" if (self.static / "styles.css").is_file() else ""

    @property
    def rules_path(self) -> Path:
        return ROOT / self.rules_doc if self.rules_doc else self.folder / "rules.md"

    @cached_property
    def rules_summary(self) -> str:
        """The rules in short, as Markdown: the section of the rules doc headed
        :data:`SUMMARY_HEADING` (``""`` if it has none). Read from the doc itself, so the
        summary a player reads beside the board is the one bot authors read."""
        lines = self.rules_path.read_text(encoding="utf-8").splitlines()
        if SUMMARY_HEADING not in lines:
            return ""
        start = lines.index(SUMMARY_HEADING) + 1
        end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
        return "\n".join(lines[start:end]).strip()

    def _attribute(self, module: str, name: str) -> Any:
        return getattr(importlib.import_module(f"{self.package}.{module}"), name)


GAMES: dict[str, GameInfo] = {
    "brexit": GameInfo(
        name="brexit",
        title="Brexit: The Real Deal",
        package="games.brexit",
        blurb=(
            "Each nation of the United Kingdom negotiates trade deals with the world. Cards are "
            "placed face down beside the countries on offer, flipped together, and the strongest "
            "offer wins the deal; secret agendas reward the right symbols."
        ),
        rules_doc="docs/games/brexit.md",
    ),
    "brasilis": GameInfo(
        name="brasilis",
        title="Bra$ilis",
        package="games.brasilis",
        blurb=(
            "Corrupt politicians fight over the news: good headlines and bad ones are pushed onto "
            "rivals with influence cards, some played face down, while money buys aids at sealed "
            "auctions and the population's Fury rises towards revolution."
        ),
        rules_doc="docs/games/brasilis.md",
    ),
}


def register(info: GameInfo) -> None:
    """Add a game that is not shipped in games/ (the test settings add the tests' own game).

    Call it where every process of the platform runs it before serving (a settings
    module: web, workers and management commands all load theirs). Registering the same
    game again is harmless; another game under a taken name is an error.
    """
    known = GAMES.get(info.name)
    if known is not None and known != info:
        raise ValueError(f"game {info.name!r} is registered already (package {known.package})")
    GAMES[info.name] = info


def get(name: str) -> GameInfo:
    """The game called ``name``; raises KeyError naming the known games."""
    try:
        return GAMES[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))}") from None


def titles() -> str:
    """Every registered game's title, as the site names them: ``Brexit: The Real Deal and Bra$ilis``
    (the footer, the API schema's description)."""
    return join([game.title for game in GAMES.values()])
