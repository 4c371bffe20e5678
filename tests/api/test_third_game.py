"""The tests' own game (tests/support/games/highcard) through the API and the sandbox.

Nothing outside its folder names it but one line of the test settings: an uploaded bot for
it is validated in the sandbox and plays a challenge, and the API refuses what its rules
refuse, in the game's own terms.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.factories import UserFactory
from tournaments.play import runner
from tournaments.play.models import BotVersion, Match
from tournaments.play.validation import validate

pytestmark = pytest.mark.django_db

READS_ITS_CARD = b"""
def act(observation, legal):
    card = observation["hand"][0]
    return {"swap": int(card[1:]) < 5}
"""


def test_an_uploaded_bot_for_the_tests_game_is_validated_and_plays_a_challenge(
    client_for: Callable[[Any], APIClient],
) -> None:
    api = client_for(UserFactory())
    bot = api.post("/api/bots/", {"name": "high-roller", "game": "highcard"}, format="json")
    assert bot.status_code == 201, bot.content
    upload = {"filename": "bot.py", "source": READS_ITS_CARD.decode()}
    version = api.post(f"/api/bots/{bot.data['id']}/versions/", upload, format="json")
    assert version.status_code == 201, version.content
    assert validate(version.data["id"]) == "ready"  # a smoke match in the sandbox, vs built-ins

    seats = [{"bot_version": version.data["id"]}, {"builtin": "greedy"}, {"builtin": "random"}]
    r = api.post("/api/matches/", {"game": "highcard", "seats": seats, "seed": 3}, format="json")
    assert r.status_code == 201, r.content
    assert runner.run_match(r.data["id"]) is runner.RunResult.FINISHED
    match = Match.objects.get(pk=r.data["id"])
    assert match.status == Match.Status.FINISHED and 1 in [s.rank for s in match.seats.all()]

    events = api.get(f"/api/matches/{match.pk}/events/").json()["events"]
    types = [e["type"] for e in events]
    assert types[:4] == ["game_started", "dealt", "dealt", "dealt"]
    assert "bot_verdict" in types and types[-3:] == ["revealed", "game_ended", "match_finished"]
    verdicts = [e["payload"]["verdict"] for e in events if e["type"] == "bot_verdict"]
    assert verdicts == ["ok"]
    # The bot read its own card: it swapped exactly when the card it was dealt was low.
    dealt = next(e for e in events if e["type"] == "dealt" and e["payload"]["seat"] == 0)
    swapped = any(e["type"] == "discarded" and e["payload"]["seat"] == 0 for e in events)
    assert swapped == (int(dealt["payload"]["card"][1:]) < 5)
    assert BotVersion.objects.get(pk=version.data["id"]).status == BotVersion.Status.READY


@pytest.mark.parametrize(
    ("seats", "reason"),
    [
        ([{"builtin": "random"}] * 5, "High Card takes 2 to 4 seats, not 5"),  # its Rules say
        ([{"builtin": "search"}, {"builtin": "random"}], "choose one of random, greedy"),
    ],
)
def test_the_api_refuses_what_the_tests_game_does_not_offer(
    client_for: Callable[[Any], APIClient], seats: list[dict[str, Any]], reason: str
) -> None:
    api = client_for(UserFactory())
    r = api.post("/api/matches/", {"game": "highcard", "seats": seats}, format="json")
    assert r.status_code == 400 and reason in str(r.content), r.content
