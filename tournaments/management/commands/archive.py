"""``manage.py archive``: compact finished matches into the archive (tournaments/play/archiving.py)."""

from __future__ import annotations

import json
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from replays import partitions
from tournaments.play import archiving


class Command(BaseCommand):
    help = (
        "Compact up to --limit matches that are over and that every feed reader has passed into"
        " the archive (one compressed document each, verified event by event before their rows"
        " leave the events table); a past month's partition, once all archived, is emptied whole."
        " Creates the coming months' partitions first. Prints a JSON summary."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--limit", type=int, default=1000)

    def handle(self, *args: Any, **options: Any) -> None:
        start = time.perf_counter()
        added = partitions.add_partitions()
        done = archiving.compact(options["limit"])
        summary = {
            "partitions_added": added,
            "partitions_released": done.released,
            "partitions_kept": done.kept,
            "matches": done.matches,
            "events": done.events,
            "dictionaries_trained": done.dictionaries,
            "seconds": round(time.perf_counter() - start, 3),
        }
        self.stdout.write(json.dumps(summary))
