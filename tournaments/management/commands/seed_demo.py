"""Seed the demo data once: a finished match of each game, a ladder per game, a demo season.

``make up`` runs it after migrating, so a fresh install has something to list
and replay, and, as soon as the workers and beat are up, matches being played
and ratings moving with no further command: each ladder's first round is queued
here, the beat plays the next ones, and the demo season starts at once. Each
part is created only if it is missing.
"""

from __future__ import annotations

import random
from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone
from django_celery_beat.models import IntervalSchedule, PeriodicTask

from config import queues
from games.engine.builtin import builtin_names
from tournaments.competition import ladders, seasons
from tournaments.competition.models import Ladder, Season, SeasonEntrant
from tournaments.play import lifecycle, runner
from tournaments.play.models import Match, Seat

DEMO = [
    ("brexit", 2026, ("search", "greedy", "random", "random")),
    ("brasilis", 2010, ("search", "greedy", "greedy", "random")),
]
# Both games take three players; the six built-in bots fill two three-seat tables a round.
LADDER_SEATS = 3
DEMO_SEASON = "Demo season"
DEMO_SEASON_ROUNDS = 2
"""Rounds of the demo season: its six built-ins fill two three-seat tables a round, so 4 tables
x 3 seat rotations = 12 matches, about 6 min."""


class Command(BaseCommand):
    help = "Create the demo matches, ladders and season, each once."

    def handle(self, *args: Any, **options: Any) -> None:
        self._demo_matches()
        self._ladder_schedule()
        for game, _, _ in DEMO:
            self._ladder(game)
        self._season()

    def _demo_matches(self) -> None:
        if Match.objects.filter(ladder=None, season=None).exists():
            self.stdout.write("demo data: matches exist already, nothing to seed")
            return
        for game, seed, bots in DEMO:
            seats = [Seat(number=n, builtin=name) for n, name in enumerate(bots)]
            match = lifecycle.do_create(seats=seats, send=False, game=game, seed=seed, options={})
            result = runner.play_here(match.id)  # claimed: running while it plays
            self.stdout.write(f"demo data: {game} match {match.id} {result.value}")

    def _ladder_schedule(self) -> None:
        """The periodic task the migration made (a flushed database may have lost it)."""
        every, _ = IntervalSchedule.objects.get_or_create(
            every=queues.LADDER_ROUND_SECONDS, period=IntervalSchedule.SECONDS
        )
        PeriodicTask.objects.get_or_create(
            name=queues.LADDER_ROUNDS, defaults={"task": queues.RUN_LADDERS, "interval": every}
        )

    def _ladder(self, game: str) -> None:
        ladder, created = Ladder.objects.get_or_create(
            game=game,
            seats=LADDER_SEATS,
            defaults={
                "name": f"{game} ({LADDER_SEATS} players)",
                "builtins": list(builtin_names(game)),
            },
        )
        if created:
            # The first round now: the workers play it as soon as they start.
            queued = ladders.play_round(ladder)
            self.stdout.write(f"demo data: ladder {ladder.name}, first round of {len(queued)}")

    def _season(self) -> None:
        if Season.objects.filter(name=DEMO_SEASON).exists():
            return
        with transaction.atomic():
            season = Season.objects.create(
                name=DEMO_SEASON,
                game="brexit",
                seats=LADDER_SEATS,
                # A round robin of six built-ins is 20 tables (60 matches): too long for a demo.
                format=Season.Format.BALANCED,
                rounds=DEMO_SEASON_ROUNDS,
                games_per_table=0,
                starts_at=timezone.now(),
                matches_per_hour=120,
            )
            for name in builtin_names(season.game):
                SeasonEntrant.objects.create(season=season, builtin=name)
            seasons.open_season(season=season)
            seasons.start_season(season=season, rng=random.Random(2026))  # noqa: S311 (a fixed demo draw)
            seasons.play_due(season=season)
        self.stdout.write(f"demo data: {DEMO_SEASON} running")
