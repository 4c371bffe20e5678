"""``manage.py ratings rebuild|check|update``: the ratings read model from the event store."""

from __future__ import annotations

import json
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments.rating import rating_feed


class Command(BaseCommand):
    help = (
        "rebuild: recompute every rating from the stored match_finished events and replace the"
        " stored ones (exits non-zero if they differed); check: compare only; update: rate what"
        " the feed has settled."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["rebuild", "check", "update"])

    def handle(self, *args: Any, **options: Any) -> None:
        start = time.perf_counter()
        if options["action"] == "update":
            self.stdout.write(json.dumps({"results_read": rating_feed.consume()}))
            return
        rebuilt = rating_feed.rebuild(write=options["action"] == "rebuild")
        report = {
            "results": rebuilt.results,
            "ratings": rebuilt.ratings,
            "history_rows": rebuilt.history,
            "differences": len(rebuilt.differences),
            "seconds": round(time.perf_counter() - start, 3),
        }
        self.stdout.write(json.dumps(report))
        for line in rebuilt.differences[:50]:
            self.stderr.write(line)
        if rebuilt.differences:
            raise CommandError(
                f"{len(rebuilt.differences)} stored ratings differed from the events"
                + (" (replaced)" if options["action"] == "rebuild" else "")
            )
