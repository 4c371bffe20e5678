"""Which seats of a fork change player (services._same_player): those leave their verdicts in the
original (tests/viewer/test_api.py plays the whole fork)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from tournaments.play.models import Seat
from tournaments.play.services import _same_player

FORKER = SimpleNamespace(pk=3)

VERSION_7 = Seat(number=0, bot_version_id=7, builtin="", player_id=None)
RANDOM = Seat(number=1, bot_version_id=None, builtin="random", player_id=None)
THE_FORKER = Seat(number=2, bot_version_id=None, builtin="", player_id=3)
SOMEONE = Seat(number=3, bot_version_id=None, builtin="", player_id=4)


@pytest.mark.parametrize(
    ("wanted", "seat", "same"),
    [
        ({"bot_version": 7}, VERSION_7, True),  # kept ({} completes to its version), or named
        ({"bot_version": 8}, VERSION_7, False),
        ({"builtin": "random"}, VERSION_7, False),
        ({"builtin": "random"}, RANDOM, True),
        ({"builtin": "greedy"}, RANDOM, False),
        ({"bot_version": 7}, RANDOM, False),
        ({"human": True}, THE_FORKER, True),  # the forker plays on the seat they played
        ({"human": True}, SOMEONE, False),  # the forker takes over another person's seat
        ({"human": True}, VERSION_7, False),
        ({"builtin": ""}, SOMEONE, False),
    ],
)
def test_a_seat_keeps_its_player_only_if_the_same_one_plays_on(
    wanted: dict[str, Any], seat: Seat, same: bool
) -> None:
    assert _same_player(FORKER, wanted, seat) is same
