"""Hostile uploads in real matches, played by the runner as a worker plays them.

The sandbox's own suite (tests/games/sandbox/test_hostile.py) proves each
attack is contained; here the same bot files sit in a real Brexit match and
the match must still finish, with the right verdicts stored as events, while
the process running the match (this test's, standing in for a worker) survives.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from replays import store
from tests.factories import BotVersionFactory, MatchFactory, SeatFactory
from tournaments import runner
from tournaments.models import Match

pytestmark = pytest.mark.django_db

HOSTILE = Path(__file__).resolve().parents[1] / "games" / "sandbox" / "hostile"

# bot file -> the verdict its first decision must get
EXPECTED = {
    "busy_loop.py": "timeout",
    "crash_import.py": "crash",
    "exec_shell.py": "crash",
    "fork_bomb.py": "crash",
    "memory_bomb.py": "memory",
    "flood.py": "timeout",
    "protocol_flood.py": "bad_output",
    "invalid_json.py": "bad_output",
    "unserialisable.py": "bad_output",
    "illegal.py": "illegal_action",
    "kill_parent.py": "crash",
    # Fills every place it can write, then answers with its findings: not a Brexit action.
    "fill_writable.py": "illegal_action",
}


# fill_writable walks every folder of the host's /usr in its start(): over the 5 s of a real
# start from a cold disk cache (a freshly booted host), so it gets a start deadline of its own.
START_SECONDS = {"fill_writable.py": 120.0}


@pytest.mark.parametrize("bot_file", sorted(EXPECTED))
def test_a_hostile_bot_gets_its_verdict_and_the_match_finishes(
    bot_file: str, settings: Any
) -> None:
    settings.BOT_START_SECONDS = START_SECONDS.get(bot_file, settings.BOT_START_SECONDS)
    match = MatchFactory(game="brexit", seed=3)
    hostile = BotVersionFactory(bot__game="brexit", upload=(HOSTILE / bot_file).read_bytes())
    SeatFactory(match=match, number=0, bot_version=hostile)
    SeatFactory(match=match, number=1, bot_version=None, builtin="random")
    SeatFactory(match=match, number=2, bot_version=None, builtin="random")
    me = os.getpid()

    assert runner.run_match(match.id) is runner.RunResult.FINISHED

    assert os.getpid() == me  # still here: nothing killed the "worker"
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    events = store.read(match.id)
    assert [e.version for e in events] == list(range(1, len(events) + 1))
    verdicts = [e.payload for e in events if e.type == "bot_verdict"]
    assert verdicts[0]["verdict"] == EXPECTED[bot_file], verdicts[0]
    assert verdicts[0]["detail"]  # the owner is told why
    seat = match.seats.get(number=0)
    assert seat.verdicts.get(EXPECTED[bot_file], 0) >= 1
    assert seat.strikes == 3 and seat.disqualified  # it keeps faulting, so it is disqualified
    assert [e.type for e in events].count("match_finished") == 1
