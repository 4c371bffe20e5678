"""End to end with a real worker and beat: a ladder plays rounds by itself and ratings move;
a season created through the admin runs to its end and shows final standings with intervals.

The worker and beat here use queues of their own, so that other suites' workers on the same
broker never take these tasks (and this worker never takes theirs).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest
from django.test import Client
from django.urls import reverse
from django_celery_beat.models import IntervalSchedule, PeriodicTask

from config.queues import task_routes
from games.engine.builtin import builtin_names
from tests.e2e.conftest import Worker, _env, wait_until
from tests.factories import UserFactory
from tests.support.processes import BIN, Processes
from tests.tournaments.test_season_admin import create_season_in_admin, season_action
from tournaments.competition.models import Ladder, Season
from tournaments.play.models import Match
from tournaments.rating.models import Rating, RatingHistory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]


@pytest.fixture
def worker_and_beat(
    monkeypatch: pytest.MonkeyPatch, processes: Processes
) -> Iterator[Callable[[], tuple[Worker, Worker]]]:
    from config.celery import app

    suffix = uuid.uuid4().hex[:8]
    queues = {
        "TEST_CELERY_QUEUE": f"t9-celery-{suffix}",
        "TEST_MATCH_QUEUE": f"t9-matches-{suffix}",
        "TEST_VALIDATION_QUEUE": f"t9-validation-{suffix}",
        "TEST_PEOPLE_QUEUE": f"t9-people-{suffix}",
        "TEST_RATINGS_QUEUE": f"t9-ratings-{suffix}",
    }
    # This process sends to the same queues as the processes it starts.
    monkeypatch.setitem(app.conf, "task_default_queue", queues["TEST_CELERY_QUEUE"])
    monkeypatch.setitem(
        app.conf,
        "task_routes",
        task_routes(
            matches=queues["TEST_MATCH_QUEUE"],
            validation=queues["TEST_VALIDATION_QUEUE"],
            people=queues["TEST_PEOPLE_QUEUE"],
            ratings=queues["TEST_RATINGS_QUEUE"],
        ),
    )
    env = {
        **_env(60),
        **queues,
        # Beat's periodic tasks (run-seasons, update-ratings, reap-matches) every 2 s instead of
        # every 15-30 s: a season's next due matches are queued on the next tick (settings/test.py).
        "TEST_BEAT_SECONDS": "2",
    }

    def start() -> tuple[Worker, Worker]:
        worker = processes.worker(env, queues=",".join(queues.values()), prefix="t9")
        beat = processes.start(
            [
                str(BIN / "celery"),
                "-A",
                "config",
                "beat",
                "--loglevel",
                "INFO",
                "--max-interval",
                "1",
            ],
            env,
            what="beat",
        )
        return worker, beat

    try:
        yield start
    finally:
        processes.stop_all()
        app.control.purge()


SHORT_GAMES = {"brexit": {"max_rounds": 6}, "brasilis": {"more_your_way": {"rounds": 2}}}
"""Options that keep each ladder game to a few seconds: the ladder plays them as it plays any."""


@pytest.mark.timeout(600)
def test_a_ladder_of_builtin_bots_plays_rounds_by_itself(
    worker_and_beat: Callable[[], tuple[Worker, Worker]],
) -> None:
    """Each game's six built-in bots in a three-seat ladder: two tables, six games a round."""
    ladders = [
        Ladder.objects.create(
            name=f"e2e {game}",
            game=game,
            seats=3,
            options=options,
            builtins=list(builtin_names(game)),
        )
        for game, options in SHORT_GAMES.items()
    ]
    every, _ = IntervalSchedule.objects.get_or_create(every=5, period=IntervalSchedule.SECONDS)
    PeriodicTask.objects.update_or_create(
        name="ladder rounds", defaults={"task": "tournaments.run_ladders", "interval": every}
    )
    worker, beat = worker_and_beat()

    def rounds_rated() -> bool:
        for ladder in ladders:
            players = {f"builtin:{name}" for name in builtin_names(ladder.game)}
            assert len(players) == 6
            finished = Match.objects.filter(ladder=ladder, status="finished")
            rated = set(
                Rating.objects.filter(ladder=ladder, games__gt=0).values_list("player", flat=True)
            )
            # A round seats two tables: a third deal means the beat ran a later round by itself.
            if len(set(finished.values_list("seed", flat=True))) < 3 or rated != players:
                return False
        return True

    wait_until(
        rounds_rated, 480, "two ladder rounds per game played and all six bots rated", worker
    )
    assert "tournaments.run_ladders" in beat.log
    for ladder in ladders:
        moved = RatingHistory.objects.filter(pool=f"ladder:{ladder.pk}").exclude(mu_after=25.0)
        assert moved.exists()
        assert len({r.rating for r in Rating.objects.filter(ladder=ladder)}) > 1
        # Each duplicate set is the same deal once per seat rotation, with the ladder's options.
        for seed in set(Match.objects.filter(ladder=ladder).values_list("seed", flat=True)):
            games = Match.objects.filter(ladder=ladder, seed=seed)
            assert games.count() == 3
            assert all(g.options == SHORT_GAMES[ladder.game] for g in games)


@pytest.mark.timeout(600)
def test_a_season_created_in_the_admin_runs_to_its_end(
    worker_and_beat: Callable[[], tuple[Worker, Worker]],
) -> None:
    PeriodicTask.objects.filter(name="ladder rounds").update(enabled=False)
    client = Client()
    client.force_login(UserFactory(is_staff=True, is_superuser=True))  # type: ignore[arg-type]
    season = create_season_in_admin(
        client,
        name="e2e season",
        # quick, not search: the worker plays its games at 0.2 s of CPU, not 1.8 (2026-12-04).
        entrants=[{"builtin": "random"}, {"builtin": "greedy"}, {"builtin": "quick"}],
        format="round_robin",
        matches_per_hour="3600",
    )
    assert "open" in season_action(client, season, "open_season")
    assert "running" in season_action(client, season, "start_season")
    worker, _ = worker_and_beat()
    wait_until(
        lambda: Season.objects.get(pk=season.pk).state == "finished",
        300,
        "the season to finish",
        worker,
    )
    season.refresh_from_db()
    assert season.standings is not None and len(season.standings) == 3
    assert all(s["low"] < s["elo"] < s["high"] and s["games"] == 3 for s in season.standings)
    page = client.get(reverse("admin:tournaments_season_change", args=[season.pk])).content.decode()
    assert "3 / 3" in page and "95% interval" in page
    assert Match.objects.filter(season=season, status="finished").count() == 3
