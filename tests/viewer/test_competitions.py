"""Competitions easy to find: the seasons page (linked from home), a season's state, progress
and dates, a ladder's next round, and what each match is (the match list's tag, the API's
``kind``)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from django_celery_beat.models import IntervalSchedule, PeriodicTask

from config import queues
from tests.factories import BotVersionFactory, MatchFactory, SeatFactory, UserFactory, finish
from tournaments.competition.models import Fixture, Ladder, Season, Series

pytestmark = pytest.mark.django_db


def _season(name: str, state: str, **fields: object) -> Season:
    return Season.objects.create(name=name, game="brexit", seats=3, state=state, **fields)


def _fixtures(season: Season, finished: int, waiting: int, round_number: int = 1) -> None:
    for n in range(finished + waiting):
        match = None
        if n < finished:
            match = finish(MatchFactory(season=season))
        Fixture.objects.create(
            season=season,
            round=round_number,
            table=n + 1,
            game_number=1,
            players=["builtin:random"] * 3,
            seed=n,
            match=match,
        )


def test_the_seasons_page_lists_scheduled_running_and_finished_from_home() -> None:
    _season("Autumn cup", Season.State.OPEN, starts_at=timezone.now() + timedelta(days=2))
    running = _season("Winter league", Season.State.RUNNING, started_at=timezone.now())
    _fixtures(running, finished=2, waiting=3)
    _season("Spring open", Season.State.FINISHED, finished_at=timezone.now())
    home = Client().get("/").content.decode()
    assert 'href="/seasons/"' in home
    page = Client().get("/seasons/").content.decode()
    sections = {
        name: page[page.index(f'id="seasons-{name}"') :]
        for name in ("scheduled", "running", "finished")
    }
    assert "Autumn cup" in sections["scheduled"].split('id="seasons-running"')[0]
    assert "Winter league" in sections["running"].split('id="seasons-finished"')[0]
    assert "Spring open" in sections["finished"]
    assert "2 of 5" in page
    assert f'href="/seasons/{running.pk}/"' in page


def test_a_seasons_page_shows_its_state_progress_and_dates() -> None:
    started = timezone.now() - timedelta(hours=3)
    season = _season("Winter league", Season.State.RUNNING, started_at=started)
    _fixtures(season, finished=4, waiting=2)
    page = Client().get(f"/seasons/{season.pk}/").content.decode()
    assert "status-running" in page
    assert "4 of 6 matches played" in page
    assert '<progress value="4" max="6">' in page
    assert started.strftime("%Y-%m-%d %H:%M") in page


def test_a_swiss_seasons_plan_counts_its_rounds_still_to_draw() -> None:
    season = _season(
        "Swiss",
        Season.State.RUNNING,
        format=Season.Format.SWISS,
        rounds=4,
        started_at=timezone.now(),
    )
    _fixtures(season, finished=1, waiting=1)  # round 1 of 4 drawn: 2 tables a round
    page = Client().get(f"/seasons/{season.pk}/").content.decode()
    assert "1 of 8 matches played" in page


def test_a_ladders_page_says_when_its_next_round_is_due() -> None:
    ladder = Ladder.objects.create(name="Brexit ladder", game="brexit", seats=3)
    every = IntervalSchedule.objects.create(every=180, period=IntervalSchedule.SECONDS)
    PeriodicTask.objects.filter(task=queues.RUN_LADDERS).delete()
    last = timezone.now() - timedelta(seconds=60)
    PeriodicTask.objects.create(
        name="rounds", task=queues.RUN_LADDERS, interval=every, last_run_at=last
    )
    page = Client().get(f"/ladders/{ladder.pk}/").content.decode()
    due = last + timedelta(seconds=180)
    assert "Next round due" in page
    assert f'datetime="{due.isoformat()}"' in page
    PeriodicTask.objects.update(enabled=False)
    assert "No round is scheduled" in Client().get(f"/ladders/{ladder.pk}/").content.decode()
    Ladder.objects.filter(pk=ladder.pk).update(is_active=False)
    assert "Inactive: it plays no rounds" in Client().get(f"/ladders/{ladder.pk}/").content.decode()


def test_each_match_says_what_it_is_on_the_list_and_in_the_api() -> None:
    owner: Any = UserFactory()
    ladder = Ladder.objects.create(name="L", game="brexit", seats=3)
    season = _season("S", Season.State.RUNNING)
    series = Series.objects.create(owner=owner, game="brexit", seats=3, deals=1)
    original = finish(MatchFactory())
    made = {
        "ladder": MatchFactory(ladder=ladder),
        "season": MatchFactory(season=season),
        "series": MatchFactory(series=series),
        "fork": MatchFactory(forked_from=original, forked_at=3),
        "person": MatchFactory(created_by=owner),
        "challenge": original,
    }
    SeatFactory(match=made["person"], number=0, bot_version=None, player=owner)
    api = Client().get("/api/matches/?limit=50").json()["results"]
    kinds = {m["id"]: m["kind"] for m in api}
    assert {kind: kinds[str(m.pk)] for kind, m in made.items()} == {k: k for k in made}
    page = Client().get("/matches/").content.decode()
    for label in ("ladder", "season", "series", "fork", "person's game", "challenge"):
        assert f">{label}</span>" in page.replace("&#x27;", "'")
    # An upload's smoke match is its owner's: they see what it is.
    version = BotVersionFactory(bot__owner=owner)
    smoke = MatchFactory(validation_of=version)
    c = Client()
    c.force_login(owner)
    assert c.get(f"/api/matches/{smoke.pk}/").json()["kind"] == "validation"
