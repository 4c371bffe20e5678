"""A version's validation run is kept as a match its owner (and staff) can read, linked from the error."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from replays import store
from tests.factories import BotVersionFactory, UserFactory
from tournaments.play.models import BotVersion, Match
from tournaments.play.validation import validate

pytestmark = pytest.mark.django_db

CRASH = b"def act(observation, legal):\n    raise RuntimeError('boom at move one')\n"


def test_the_smoke_match_is_stored_private_and_linked(
    client_for: Callable[[Any], APIClient],
) -> None:
    version = BotVersionFactory(upload=CRASH, status=BotVersion.Status.PENDING)
    assert validate(version.id) == "rejected"
    version.refresh_from_db()
    smoke = Match.objects.get(validation_of=version)
    assert (smoke.status, smoke.rated) == ("finished", False)
    error = version.validation_error
    assert error.startswith(f"smoke match {smoke.pk}, step ")
    found = re.search(r"step (\d+)", error)
    assert found is not None
    step = int(found.group(1))
    [verdict] = store.read(smoke.pk, from_version=step + 1, to_version=step + 1)
    assert (verdict.type, verdict.payload["verdict"]) == ("bot_verdict", "crash")

    owner = client_for(version.bot.owner)
    shown = owner.get(f"/api/bots/{version.bot_id}/versions/{version.number}/").json()
    assert shown["smoke_match"] == str(smoke.pk)
    assert shown["smoke_match_url"].endswith(f"/api/matches/{smoke.pk}/events/")
    page = owner.get(shown["smoke_match_url"], {"after": step}).json()
    assert "boom at move one" in page["events"][0]["payload"]["detail"]
    assert str(smoke.pk) in [m["id"] for m in owner.get("/api/matches/").json()["results"]]
    assert owner.get(f"/api/matches/{smoke.pk}/").json()["validation_of"] == version.pk

    staff = client_for(UserFactory(is_staff=True))
    assert staff.get(f"/api/matches/{smoke.pk}/").status_code == 200
    for someone in (APIClient(), client_for(UserFactory())):
        for url in (f"/api/matches/{smoke.pk}/", f"/api/matches/{smoke.pk}/events/"):
            assert someone.get(url).status_code == 404
        listed = [m["id"] for m in someone.get("/api/matches/").json()["results"]]
        assert str(smoke.pk) not in listed
        shown = someone.get(f"/api/bots/{version.bot_id}/versions/{version.number}/").json()
        assert shown["smoke_match"] is None and shown["validation_error"] is None


def test_a_ready_version_keeps_its_smoke_match_too() -> None:
    source = b"def act(observation, legal):\n    return legal['actions'][0] if legal['actions'] else {'place': []}\n"
    version = BotVersionFactory(upload=source, status=BotVersion.Status.PENDING)
    assert validate(version.id) == "ready"
    smoke = Match.objects.get(validation_of=version)
    assert smoke.status == "finished" and store.current_version(smoke.pk) > 0
