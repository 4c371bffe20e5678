"""A game is one package, found through the registry; the tests' own game proves it.

High Card (tests/support/games/highcard) is written for the tests only and registered by
one line of the test settings. Everything the platform needs of a game comes from the
registry: its rules, built-in bots, view, board template and rules doc.
"""

from __future__ import annotations

import random
import subprocess
import sys
import tomllib

import pytest

from games.engine.builtin import builtin_names, make_player
from games.engine.match import LocalMatch
from games.engine.registry import GAMES, ROOT, GameInfo, get, register
from games.engine.view import GameView
from tests.support.shipped import NOT_GAMES, SHIPPED_FOLDER, shipped_games

TESTS_GAME = ROOT / "tests" / "support" / "games" / "highcard"
GAME_LISTS = {
    ("each game is independent of the others", "modules"),
    ("the rules (the engine and every game) never import the sandbox", "source_modules"),
    (
        "a game is one package: outside games/, only the registry finds a game (issue 22)",
        "forbidden_modules",
    ),
    (
        "the engine names no game: the registry imports each lazily, by module path",
        "forbidden_modules",
    ),
    ("the sandbox is independent of each game's internals", "forbidden_modules"),
}
"""The import-linter contracts' lists of games (pyproject.toml), by contract name and key."""


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_registry_finds_everything_about_each_game(name: str) -> None:
    info = get(name)
    assert info.rules.name == name
    assert "random" in info.builtin_bots  # validation's smoke match seats it
    assert isinstance(info.view, GameView)
    assert (info.templates / "board.html").is_file()
    assert info.board_template == f"{name}/board.html"
    assert info.rules_path.is_file()
    assert info.title and info.folder.name == info.package.rsplit(".", 1)[-1]


def test_the_tests_game_is_registered_by_the_test_settings_and_not_shipped() -> None:
    info = get("highcard")
    assert info.folder == TESTS_GAME
    assert not info.folder.is_relative_to(ROOT / "games")
    assert info.rules_path == TESTS_GAME / "rules.md"
    assert builtin_names("highcard") == ("random", "greedy")


def test_a_process_that_loads_the_test_settings_knows_the_tests_game() -> None:
    """Workers and commands load the settings: the registration is in them, not in a fixture."""
    code = (
        "import django; django.setup()\n"
        "from games.engine.registry import GAMES; print(sorted(GAMES))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={"DJANGO_SETTINGS_MODULE": "config.settings.test", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert out.stdout.strip().splitlines()[-1] == "['brasilis', 'brexit', 'highcard']"


def test_the_tests_game_plays_with_its_built_in_bots() -> None:
    rules = get("highcard").rules
    for seats in (2, 3, 4):
        match = LocalMatch(rules, seats, seed=seats)
        players = [
            make_player("highcard", n) for n in ("greedy", "random", "greedy", "random")[:seats]
        ]
        outcome = match.play_out(players, random.Random(1))
        assert sorted(outcome["ranks"])[0] == 1
        assert [e["type"] for e in match.events][-2:] == ["revealed", "game_ended"]


def test_registering_another_game_under_a_taken_name_is_refused() -> None:
    info = get("highcard")
    register(info)  # the same game again (settings loaded twice): harmless
    with pytest.raises(ValueError, match="registered already"):
        register(GameInfo("highcard", "Another", package="tests.support.games.elsewhere"))
    assert get("highcard") is info


def test_a_game_without_its_package_is_named_in_the_error() -> None:
    missing = GameInfo("nothing", "Nothing", package="tests.support.games.nothing")
    with pytest.raises(ModuleNotFoundError, match="nothing"):
        missing.folder  # noqa: B018 (the property is the call under test)


def _games_named(modules: list[str]) -> set[str]:
    """The packages under games/ that ``modules`` names, but the engine and the sandbox."""
    return {m for m in modules if m.startswith("games.") and m.split(".")[1] not in NOT_GAMES}


def test_every_package_under_games_is_a_registered_game() -> None:
    # A game's folder the registry does not know would be in no test's list and no contract.
    folders = {p.name for p in SHIPPED_FOLDER.iterdir() if (p / "__init__.py").is_file()}
    assert folders - NOT_GAMES == {get(name).folder.name for name in shipped_games()}
    assert "highcard" not in shipped_games()  # registered by the test settings, not shipped


def test_every_shipped_game_is_in_each_import_contract_that_lists_the_games() -> None:
    """High Card is in none: import-linter's root packages (games, replays, tournaments,
    config, backroom_cli) hold no tests, so its imports are not graphed."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = pyproject["tool"]["importlinter"]["contracts"]
    packages = {get(name).package for name in shipped_games()}
    lists = {
        (c["name"], key): _games_named(value)
        for c in contracts
        for key, value in c.items()
        if isinstance(value, list) and _games_named(value)
    }
    assert set(lists) == GAME_LISTS  # a list of games added or renamed: name it above
    assert {where: packages for where in GAME_LISTS} == lists
