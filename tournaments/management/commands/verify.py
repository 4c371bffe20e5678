"""``manage.py verify``: every stored match and rating against the event store (read only)."""

from __future__ import annotations

import json
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from config import replica
from tournaments.rating import integrity


class Command(BaseCommand):
    help = (
        "Fold every stored match from its events and check its stream, status, outcome and seat"
        " results, and every rating against a rebuild that writes nothing; prints a JSON summary"
        " (with the read replica's lag, if one is configured),"
        " each mismatch on stderr, and exits non-zero if there is any."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        start = time.perf_counter()
        report = integrity.verify()
        summary = {
            "matches": report.matches,
            "events": report.events,
            "mismatches": len(report.mismatches),
            "seconds": round(time.perf_counter() - start, 3),
            # Shown, not judged: a lagging replica serves no reads (config/replica.py).
            **replica.measure().as_json(),
        }
        self.stdout.write(json.dumps(summary))
        for line in report.mismatches:
            self.stderr.write(line)
        if report.mismatches:
            raise CommandError(f"{len(report.mismatches)} stored rows disagree with the events")
