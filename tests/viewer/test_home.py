"""The home page: each game's player counts and only the seasons actually running."""

from __future__ import annotations

import pytest
from django.test import Client

from games.engine.registry import GAMES
from tournaments.competition.models import Season

pytestmark = pytest.mark.django_db


def test_each_game_shows_its_seat_range() -> None:
    html = Client().get("/").content.decode()
    assert "\u2013 players" not in html
    for info in GAMES.values():
        assert f"{info.min_seats}\u2013{info.max_seats} players" in html


def test_only_running_seasons_are_listed_as_running() -> None:
    Season.objects.create(name="spring-running", game="brexit", state=Season.State.RUNNING)
    Season.objects.create(name="winter-finished", game="brexit", state=Season.State.FINISHED)
    Season.objects.create(name="autumn-draft", game="brasilis", state=Season.State.DRAFT)
    html = Client().get("/").content.decode()
    assert "spring-running" in html
    assert "winter-finished" not in html and "autumn-draft" not in html
