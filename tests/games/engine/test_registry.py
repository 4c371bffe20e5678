"""The registry finds each game; the facts about a game are its Rules' own, stated once."""

from __future__ import annotations

import dataclasses

import pytest

from games.engine.errors import BadOptions
from games.engine.registry import GAMES, GameInfo


def test_the_registry_keeps_no_seat_counts_of_its_own() -> None:
    fields = {f.name for f in dataclasses.fields(GameInfo)}
    assert not fields & {"min_seats", "max_seats", "official_seats"}
    for info in GAMES.values():
        assert (info.min_seats, info.max_seats) == (info.rules.min_seats, info.rules.max_seats)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_game_sets_up_exactly_the_seat_counts_its_rules_state(game: str) -> None:
    rules = GAMES[game].rules
    for seats in (rules.min_seats, rules.max_seats):
        rules.options(seats, {})
        assert rules.setup(seats, 1, {})
    for seats in (rules.min_seats - 1, rules.max_seats + 1):
        with pytest.raises(BadOptions, match=str(seats)):
            rules.options(seats, {})
