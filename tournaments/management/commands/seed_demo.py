"""Seed the demo data once: a finished match of each game between built-in bots.

``make up`` runs it after migrating, so a fresh install has something to list
and replay. It does nothing when any match exists already.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from tournaments import runner
from tournaments.models import Match, Seat

DEMO = [
    ("brexit", 2026, ("search", "greedy", "random", "random")),
    ("brasilis", 2010, ("search", "greedy", "greedy", "random")),
]


class Command(BaseCommand):
    help = "Create and play one demo match per game, once."

    def handle(self, *args: Any, **options: Any) -> None:
        if Match.objects.exists():
            self.stdout.write("demo data: matches exist already, nothing to seed")
            return
        for game, seed, bots in DEMO:
            match = Match.objects.create(game=game, seed=seed, options={})
            Seat.objects.bulk_create(
                Seat(match=match, number=n, builtin=name) for n, name in enumerate(bots)
            )
            result = runner.run_match(match.id)
            self.stdout.write(f"demo data: {game} match {match.id} {result.value}")
