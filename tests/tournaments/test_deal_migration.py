"""The migration that brings duplicate deals keys the sets still being played when it runs
(tournaments/migrations/00xx_duplicate_deal.py): a rotation finished before the upgrade must
not open while its set-mates play on after it."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from django.db import connection

from tests.factories import MatchFactory, finish, taken_to
from tournaments import migrations
from tournaments.competition.models import Fixture, Ladder, Season
from tournaments.play import visibility
from tournaments.play.models import Match

pytestmark = pytest.mark.django_db

# Found by its name, not its number: a number may change when branches meet.
migration = importlib.import_module(
    "tournaments.migrations."
    + next(Path(migrations.__file__).parent.glob("*_duplicate_deal.py")).stem
)


def _run_the_migrations_sql() -> None:
    with connection.cursor() as cur:
        for sql in (
            migration.KEY_LADDER_SETS,
            migration.KEY_SEASON_FIXTURES,
            migration.KEY_SEASON_MATCHES,
        ):
            cur.execute(sql)


def test_the_sets_still_playing_get_a_deal_and_stay_closed() -> None:
    ladder = Ladder.objects.create(name="trios", game="brexit", seats=3)
    live = [
        taken_to(MatchFactory(ladder=ladder, seed=5), status)
        for status in ("finished", "running", "queued")
    ]
    done = [
        taken_to(MatchFactory(ladder=ladder, seed=6), status) for status in ("finished", "aborted")
    ]
    lone = finish(MatchFactory(seed=5))  # a challenge on the same seed: no set
    season = Season.objects.create(name="s", game="brexit", seats=3, state="running")
    played = finish(MatchFactory(season=season, seed=8))
    Fixture.objects.create(
        season=season, round=1, table=1, game_number=1, players=[], seed=8, match=played
    )
    Fixture.objects.create(season=season, round=1, table=1, game_number=2, players=[], seed=8)

    _run_the_migrations_sql()

    keys = {m.pk: m.deal for m in Match.objects.all()}
    assert keys[live[0].pk] is not None and len({keys[m.pk] for m in live}) == 1
    assert all(keys[m.pk] is None for m in done) and keys[lone.pk] is None
    assert set(Fixture.objects.values_list("deal", flat=True)) == {keys[played.pk]} != {None}
    assert not visibility.deal_over(Match.objects.get(pk=live[0].pk))
    assert not visibility.deal_over(Match.objects.get(pk=played.pk))  # game 2 is still to play
    assert visibility.deal_over(Match.objects.get(pk=done[0].pk))
