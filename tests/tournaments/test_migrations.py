"""The migrations describe the models as they are, with every game the settings register.

The game fields take their choices from the registry when asked (tournaments.play.models.
game_choices): the test settings register a third game, and no migration is missing for it.
"""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from games.engine.registry import GAMES


@pytest.mark.django_db
def test_no_migration_is_missing_with_the_tests_game_registered() -> None:
    assert "highcard" in GAMES
    out = io.StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out)
    except SystemExit:
        pytest.fail(f"makemigrations found changes:\n{out.getvalue()}")
