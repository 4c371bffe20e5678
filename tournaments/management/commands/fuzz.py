"""``manage.py fuzz URL``: schemathesis over every API operation of a running server; JSON figures."""

from __future__ import annotations

import argparse
import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser


def _shard(text: str) -> tuple[int, int]:
    k, _, n = text.partition("/")
    if not (k.isdigit() and n.isdigit() and int(k) < int(n)):
        raise argparse.ArgumentTypeError(f"{text!r} is not K/N with 0 <= K < N, e.g. 0/4")
    return int(k), int(n)


class Command(BaseCommand):
    help = (
        "Fuzz every operation of the API at URL (a development server: it signs up an account and"
        " creates bots and challenges there) against its own OpenAPI schema, anonymous and with a"
        " token; print the figures as JSON and exit non-zero on any 5xx or schema violation."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("url", help="the server's root, e.g. http://127.0.0.1:8000")
        parser.add_argument(
            "--examples", type=int, default=200, help="cases per operation, role and mode"
        )
        parser.add_argument("--token", default=None, help="an API token (default: sign up one)")
        parser.add_argument("--seed", type=int, default=None, help="the same cases on every run")
        parser.add_argument(
            "--positive-only", action="store_true", help="no requests the schema forbids"
        )
        parser.add_argument(
            "--shard",
            type=_shard,
            default=(0, 1),
            metavar="K/N",
            help="only the operations whose place in the schema is K modulo N (0 <= K < N):"
            " N runs share the work",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            from tournaments.bench.fuzz import fuzz
        except ImportError as exc:  # pragma: no cover - schemathesis is a dev dependency
            raise CommandError(f"fuzz needs the dev dependencies: {exc}") from exc
        findings = fuzz(
            options["url"],
            token=options["token"],
            examples=options["examples"],
            negative=not options["positive_only"],
            seed=options["seed"],
            shard=options["shard"],
        )
        self.stdout.write(json.dumps(findings.as_dict(), indent=2))
        if findings.server_errors or findings.schema_violations:
            raise CommandError(
                f"{findings.server_errors} server errors, {findings.schema_violations} schema"
                " violations"
            )
