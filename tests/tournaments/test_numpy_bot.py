"""An uploaded bot that imports numpy is validated and plays a match through the runner, as a
worker plays it (games/sandbox/packages.py: what a bot may import)."""

from __future__ import annotations

from importlib import metadata

import pytest

from replays import store
from tests.factories import BotVersionFactory, MatchFactory, SeatFactory
from tests.games.sandbox.numpy_bot import SOURCE
from tournaments.play import runner
from tournaments.play.models import BotLog, BotVersion, Match
from tournaments.play.validation import validate

pytestmark = pytest.mark.django_db


def test_a_numpy_upload_is_validated_and_plays_a_match_through_the_runner() -> None:
    version = BotVersionFactory(bot__game="brexit", upload=SOURCE, status=BotVersion.Status.PENDING)
    assert validate(version.id) == "ready"  # its smoke match, played by the runner
    match = MatchFactory(game="brexit", seed=5)
    for number in (0, 1):
        SeatFactory(match=match, number=number, bot_version=version)
    SeatFactory(match=match, number=2, bot_version=None, builtin="greedy")

    assert runner.run_match(match.id) is runner.RunResult.FINISHED
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    verdicts = [e.payload for e in store.read(match.id) if e.type == "bot_verdict"]
    assert {v["seat"] for v in verdicts} == {0, 1}  # every decision of both numpy seats...
    assert {v["verdict"] for v in verdicts} == {"ok"}, verdicts  # ...the bot's own action
    numpy = metadata.version("numpy")
    for seat in (0, 1):
        [first, *_] = BotLog.objects.filter(match=match, seat=seat).values_list("text", flat=True)
        assert f"numpy {numpy} from /packages/numpy, blas threads 1," in first
