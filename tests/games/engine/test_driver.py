"""The match loop's contract with its sink: stage every event once, flush in order, abort on failure."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from games.engine import driver as driver_module
from games.engine.builtin import make_player
from games.engine.driver import Flush, InProcess, MatchDriver, MemorySink
from games.engine.registry import get
from games.engine.types import Event, Seat


class RecordingSink(MemorySink):
    """A MemorySink that also remembers what was staged, and whether it was aborted."""

    def __init__(self) -> None:
        super().__init__()
        self.staged: list[Event] = []
        self.aborted = False

    def stage(self, events: Sequence[Event], after_version: int) -> None:
        assert after_version == len(self.staged), "staged out of order"
        self.staged.extend(events)

    def abort(self) -> None:
        self.aborted = True

    def __call__(self, flush: Flush) -> None:
        # Everything a flush makes durable was staged before it, and nothing more.
        assert self.staged[len(self.events) :] == flush.events
        super().__call__(flush)


def play(game: str, sink: RecordingSink, players: list[Any], flush_every: int = 32) -> None:
    MatchDriver(
        get(game).rules,
        seats=len(players),
        seed=3,
        options={},
        players=players,
        sink=sink,
        flush_every=flush_every,
    ).run()


@pytest.mark.parametrize("game", ["brexit", "brasilis"])
def test_every_event_is_staged_once_before_the_flush_that_makes_it_durable(game: str) -> None:
    sink = RecordingSink()
    play(game, sink, [InProcess(make_player(game, "random", seed=s)) for s in range(4)])
    assert sink.flushes > 1
    assert sink.staged == sink.events
    assert sink.events[-1]["type"] == "match_finished"
    assert not sink.aborted


def test_a_failing_player_aborts_the_sink_and_keeps_what_was_flushed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Boom(Exception):
        pass

    monkeypatch.setattr(driver_module, "STAGE_EVERY", 1)
    sink = RecordingSink()
    bot = make_player("brexit", "random", seed=1)
    moves = 0

    def fail_later(state: Any, seat: Seat, rng: random.Random) -> Any:
        nonlocal moves
        moves += 1
        if moves >= 20 and len(sink.staged) > len(sink.events):  # between two flushes
            raise Boom
        return bot(state, seat, rng)

    with pytest.raises(Boom):
        play("brexit", sink, [InProcess(fail_later)] * 4, flush_every=16)
    assert sink.aborted
    assert 0 < len(sink.events) < len(sink.staged)  # the staged tail was never flushed


def test_a_time_limit_is_said_in_the_owners_words() -> None:
    from games.engine.driver import MatchLimits

    assert "for 30 minutes," in MatchLimits(max_seconds=1800).time_reason()
    assert "for 45 seconds," in MatchLimits(max_seconds=45).time_reason()
