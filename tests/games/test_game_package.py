"""A game is one package, found through the registry; the tests' own game proves it.

High Card (tests/support/games/highcard) is written for the tests only and registered by
one line of the test settings. Everything the platform needs of a game comes from the
registry: its rules, built-in bots, view, board template and rules doc.
"""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from games.engine.builtin import builtin_names, make_player
from games.engine.match import LocalMatch
from games.engine.registry import GAMES, ROOT, GameInfo, get, register
from games.engine.view import GameView

TESTS_GAME = ROOT / "tests" / "support" / "games" / "highcard"


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
