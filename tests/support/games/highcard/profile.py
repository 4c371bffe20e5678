"""What the registry-wide game tests (tests/games/profiles.py) need to know about High Card."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import strategies as st

from games.engine.types import Event, Seat
from tests.games.profiles import Profile, Zones
from tests.support.games.highcard.actions import SHAPES
from tests.support.games.highcard.bots.random_legal import act
from tests.support.games.highcard.rules import CARDS, State


def hidden(s: State, seat: Seat | None, recall: bool) -> Zones:
    """The deck, and the other seats' cards until they are turned up."""
    others = [] if s.revealed else [c for p, c in enumerate(s.hands) if p != seat and c]
    return [("card", [*s.deck, *others])]


def invariants(s: State) -> None:
    held = [c for c in s.hands if c is not None]
    assert Counter(s.deck + held + s.discards) == Counter(CARDS), "a card is lost or duplicated"


def reveals(ev: Event, seat: Seat | None) -> bool:
    if ev["type"] in ("discarded", "revealed", "game_ended"):
        return True
    mine = seat is not None and ev["visible_to"] is not None and seat in ev["visible_to"]
    return ev["type"] in ("dealt", "drawn") and mine


def touch_up(s: State, seat: Seat | None, renamed: dict[str, str], rng: random.Random) -> None:
    pass  # a card's identity is all there is


PROFILE = Profile(
    options=st.just({}),
    act=act,
    invariants=invariants,
    hidden=hidden,
    touch_up=touch_up,
    reveals=reveals,
    shapes=SHAPES,
)
"""Found by tests/games/profiles.py as ``<the game's package>.profile.PROFILE``."""
