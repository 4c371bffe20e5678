"""Each stored log line names the step and the verdict of the decision it was written during."""

from __future__ import annotations

import pytest

from replays import store
from tests.factories import BotVersionFactory, MatchFactory, SeatFactory
from tournaments.play.models import BotVersion
from tournaments.play.runner import RunResult, run_match

pytestmark = pytest.mark.django_db

# Every third decision is refused (an unknown action); every decision prints to stderr.
BOT = b"""
import sys
calls = 0
def act(observation, legal):
    global calls
    calls += 1
    print(f"decision {calls}", file=sys.stderr)
    if calls % 3 == 0:
        return {"nonsense": calls}
    if legal["actions"]:
        return legal["actions"][0]
    return {"place": []}
"""


def test_log_lines_carry_the_verdict_of_their_step() -> None:
    match = MatchFactory(game="brexit")
    version = BotVersionFactory(bot__game="brexit", upload=BOT, status=BotVersion.Status.READY)
    SeatFactory(match=match, number=0, bot_version=version)
    for n in (1, 2):
        SeatFactory(match=match, number=n, bot_version=None, builtin="random")
    assert run_match(match.pk) is RunResult.FINISHED
    verdicts = {
        (ev.payload["seat"], ev.payload["step"]): ev.payload["verdict"]
        for ev in store.read(match.pk)
        if ev.type == "bot_verdict"
    }
    lines = list(match.logs.order_by("version"))
    assert len(lines) >= 3
    for line in lines:
        assert line.verdict == verdicts[(line.seat, line.version)] != ""
    assert any(line.verdict != "ok" for line in lines)
