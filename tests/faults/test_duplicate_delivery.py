"""The same match task delivered twice, to two workers at once: the match is played once."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from tests.factories import BotVersionFactory, MatchFactory, SeatFactory
from tests.faults.conftest import Stack, assert_intact, platform_env, verify_clean, wait_until
from tournaments.play.models import Match
from tournaments.tasks import play_match

pytestmark = [pytest.mark.faults, pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

STEADY_BOT = (Path(__file__).parent / "bots" / "steady_bot.py").read_bytes()


def test_a_match_sent_twice_is_played_once(stack: Stack) -> None:
    # Leased (a sandboxed seat): the second delivery finds it busy, then finished.
    leased = MatchFactory(game="brexit", seed=21)
    SeatFactory(match=leased, number=0, bot_version=BotVersionFactory(upload=STEADY_BOT))
    SeatFactory(match=leased, number=1, bot_version=None, builtin="random")
    # Unleased (built-ins only): both workers may play it; the expected version lets one write.
    unleased = MatchFactory(game="brasilis", seed=22)
    for number in range(3):
        SeatFactory(match=unleased, number=number, bot_version=None, builtin="random")

    env = platform_env(MATCH_LEASE_SECONDS="5")
    workers = [stack.worker(env), stack.worker(env)]
    for match in (leased, unleased):
        for _ in range(2):
            play_match.apply_async((str(match.id),), queue=settings.MATCH_QUEUE)

    ids = [str(leased.id), str(unleased.id)]
    wait_until(
        lambda: Match.objects.filter(id__in=ids, status="finished").count() == 2,
        120,
        "both matches to finish",
        *workers,
    )
    db = connection.settings_dict
    assert_intact(f"postgresql://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}", ids)
    leased.refresh_from_db()
    assert leased.attempts == 1  # one claim: the duplicate never started it
    verify_clean(env)
