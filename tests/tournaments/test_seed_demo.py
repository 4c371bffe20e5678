"""make up seeds one finished demo match per game, once."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from tournaments.models import Match

pytestmark = pytest.mark.django_db


def test_seed_demo_plays_one_match_per_game_once() -> None:
    call_command("seed_demo")
    assert sorted(Match.objects.values_list("game", "status")) == [
        ("brasilis", "finished"),
        ("brexit", "finished"),
    ]
    call_command("seed_demo")
    assert Match.objects.count() == 2
