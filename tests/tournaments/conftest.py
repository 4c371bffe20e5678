"""Matches ready to be played by the runner."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.factories import MatchFactory, SeatFactory
from tournaments.play.models import Match

MakeMatch = Callable[..., Match]


@pytest.fixture
def builtin_match() -> MakeMatch:
    """A queued match whose seats are all built-in bots."""

    def make(
        game: str = "brexit", bots: tuple[str, ...] = ("random", "random", "random"), **kw: object
    ) -> Match:
        match = MatchFactory(game=game, **kw)
        for number, name in enumerate(bots):
            SeatFactory(match=match, number=number, bot_version=None, builtin=name)
        return match

    return make
