"""make up seeds demo matches, a ladder per game with the built-ins, and a running demo season, once."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django_celery_beat.models import PeriodicTask

from games.engine.builtin import builtin_names
from tests.tournaments.conftest import Seen, assert_true_times
from tournaments.competition.models import Fixture, Ladder, Season
from tournaments.play.models import Match

pytestmark = pytest.mark.django_db


def test_seed_demo_seeds_each_part_once() -> None:
    call_command("seed_demo")
    demo = Match.objects.filter(ladder=None, season=None)
    assert sorted(demo.values_list("game", "status")) == [
        ("brasilis", "finished"),
        ("brexit", "finished"),
    ]
    assert sorted(Ladder.objects.values_list("game", "seats", "is_active")) == [
        ("brasilis", 3, True),
        ("brexit", 3, True),
    ]
    for ladder in Ladder.objects.all():
        # Every built-in the game offers is in its ladder.
        assert sorted(ladder.builtins) == sorted(builtin_names(ladder.game))
        assert len(ladder.builtins) == 6
        # The first round is queued already: two tables, each three seat rotations of one deal.
        queued = Match.objects.filter(ladder=ladder, rated=True, status="queued")
        assert queued.count() == 6 and len(set(queued.values_list("seed", flat=True))) == 2
    assert PeriodicTask.objects.get(name="ladder rounds").task == "tournaments.run_ladders"
    season = Season.objects.get(name="Demo season")
    assert season.state == "running" and season.entrants.count() == 6
    # Two tables per built-in: four tables, three rotations each.
    assert Fixture.objects.filter(season=season).count() == 12
    assert Match.objects.filter(season=season).count() >= 1  # its first match is queued

    matches = Match.objects.count()
    call_command("seed_demo")
    assert Match.objects.count() == matches
    assert Ladder.objects.count() == 2 and Season.objects.count() == 1


# Committed, as the command commits: the times are the database clock at each transaction.
@pytest.mark.django_db(transaction=True)
def test_the_demo_matches_are_running_while_played(seen_while_played: Seen) -> None:
    """Issue 24: claimed through the lifecycle, not played unclaimed (``queued`` throughout,
    ``started_at == finished_at``)."""
    call_command("seed_demo")
    assert seen_while_played == [(Match.Status.RUNNING, True, False)] * 2
    for match in Match.objects.filter(ladder=None, season=None):
        assert_true_times(match)
