"""End to end: a real worker, started with the test settings, validates and plays the tests' own
game (tests/support/games/highcard), which only the settings' one line registers."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from replays import store
from tests import own_cache
from tests.e2e.conftest import Worker, wait_until
from tests.e2e.test_challenge import sign_up
from tournaments.play.models import BotVersion, Match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]

SWAPS_LOW_CARDS = (
    "def act(observation, legal):\n    return {'swap': observation['hand'][0] < 'c5'}\n"
)


def test_a_worker_validates_and_plays_a_bot_of_the_tests_game(
    start_worker: Callable[..., Worker],
) -> None:
    own_cache.clear()  # throttle counters of earlier runs
    worker = start_worker()
    carol = sign_up("carol")
    bot = carol.post("/api/bots/", {"name": "carol-bot", "game": "highcard"}, format="json")
    assert bot.status_code == 201, bot.content
    version = carol.post(
        f"/api/bots/{bot.data['id']}/versions/",
        {"filename": "bot.py", "source": SWAPS_LOW_CARDS},
        format="json",
    )
    assert version.status_code == 201, version.content
    wait_until(
        lambda: BotVersion.objects.get(pk=version.data["id"]).status == "ready",
        90,
        "the version to pass validation (its smoke match played on the worker)",
        worker,
    )
    seats = [{"bot_version": version.data["id"]}, {"builtin": "greedy"}, {"builtin": "random"}]
    r = carol.post("/api/matches/", {"game": "highcard", "seats": seats}, format="json")
    assert r.status_code == 201, r.content
    match_id = r.data["id"]
    wait_until(lambda: Match.objects.get(id=match_id).status == "finished", 90, "the match", worker)
    types = [e.type for e in store.read(match_id)]
    assert types[0] == "game_started" and types[-3:] == ["revealed", "game_ended", "match_finished"]
    verdicts = [e.payload["verdict"] for e in store.read(match_id) if e.type == "bot_verdict"]
    assert verdicts == ["ok"]
