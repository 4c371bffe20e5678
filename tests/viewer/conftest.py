"""Played matches for the viewer's tests: built-in bots play them for real, then seat 0
is handed to a user's bot version, so that owner rules can be checked on real cards."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest

from replays import store
from replays.store import NewEvent
from tests import own_cache
from tests.factories import BotVersionFactory, MatchFactory, SeatFactory, UserFactory, claim
from tournaments.play.models import Match, Seat
from tournaments.play.runner import RunResult, run_match

PlayMatch = Callable[..., Match]


@pytest.fixture(autouse=True)
def _clean_throttles() -> Any:
    own_cache.clear()
    yield
    own_cache.clear()


@pytest.fixture
def owner(db: None) -> Any:
    return UserFactory()


def play(
    game: str, seats: int, owner: Any | None, seed: int = 7, match_id: uuid.UUID | None = None
) -> Match:
    """A finished match of built-in bots; seat 0 then belongs to ``owner``'s bot (if given).
    ``match_id`` chooses its id, so its month, so its events' partition."""
    match = MatchFactory(game=game, seed=seed, **({"id": match_id} if match_id else {}))
    for number in range(seats):
        SeatFactory(match=match, number=number, bot_version=None, builtin="random")
    assert run_match(match.id) == RunResult.FINISHED
    if owner is not None:
        version = BotVersionFactory(bot__owner=owner, bot__game=game)
        Seat.objects.filter(match=match, number=0).update(bot_version=version, builtin="")
    match.refresh_from_db()
    return match


def running_copy(original: Match, upto: int, owner: Any | None = None) -> Match:
    """A running match whose stream is the original's first ``upto`` events: created with
    copies of them, as a fork is, and claimed by a worker."""
    events = store.read(original.id, to_version=upto)
    copies = [NewEvent(type=e.type, payload=e.payload, metadata=e.metadata) for e in events]
    match = MatchFactory(game=original.game, seed=original.seed, events=copies)
    for seat in Seat.objects.filter(match=original).order_by("number"):
        SeatFactory(match=match, number=seat.number, bot_version=None, builtin="random")
    if owner is not None:
        version = BotVersionFactory(bot__owner=owner, bot__game=original.game)
        Seat.objects.filter(match=match, number=0).update(bot_version=version, builtin="")
    return claim(match)


@pytest.fixture
def brexit_match(owner: Any) -> Match:
    return play("brexit", 4, owner)


@pytest.fixture
def brasilis_match(owner: Any) -> Match:
    return play("brasilis", 4, owner)
