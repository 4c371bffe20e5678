"""``manage.py simulate``: many in-process games between built-in bots, win rates and mean ranks.

Thin: the games and the statistics are ``games.engine.simulate``; this only
parses arguments, shows a progress bar and prints.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.engine import simulate
from games.engine.builtin import BUILTIN_BOTS
from games.engine.registry import GAMES


class Command(BaseCommand):
    help = (
        "Play many games between built-in bots (seats rotate across games) and print win rates "
        "(Wilson 95% CI, shared wins split) and mean ranks (95% CI)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", required=True, choices=sorted(GAMES))
        parser.add_argument(
            "--seat",
            action="append",
            required=True,
            help="a bot per seat, in seat order (repeat): "
            + ", ".join(sorted(BUILTIN_BOTS["brexit"])),
        )
        parser.add_argument("--games", type=int, default=100)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--jobs", type=int, default=1, help="worker processes")
        parser.add_argument(
            "--budget-ms", type=float, default=None, help="search bots: time per move (ms)"
        )
        parser.add_argument(
            "--iterations",
            type=int,
            default=None,
            help="search bots: rollouts per move (alone: deterministic, no clock)",
        )
        parser.add_argument("--json", action="store_true", help="also print one JSON line")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        lineup: list[str] = options["seat"]
        game: str = options["game"]
        unknown = sorted(set(lineup) - set(BUILTIN_BOTS[game]))
        if unknown:
            raise CommandError(
                f"unknown bot(s) {', '.join(unknown)}; built-in: {', '.join(sorted(BUILTIN_BOTS[game]))}"
            )
        if options["games"] < 1:
            raise CommandError("--games must be at least 1")
        progress = None if options["no_progress"] else _bar
        try:
            results = simulate.run(
                game,
                lineup,
                options["games"],
                seed=options["seed"],
                jobs=max(1, options["jobs"]),
                budget_ms=options["budget_ms"],
                iterations=options["iterations"],
                progress=progress,
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        stats = simulate.summarise(results)
        self.stdout.write(
            f"{game}: {options['games']} games, seats {' '.join(lineup)} (rotating), "
            "ties split fractionally"
        )
        self.stdout.write(simulate.table(stats))
        if options["json"]:
            self.stdout.write(simulate.as_json(game, lineup, options["games"], stats))


def _bar(
    stream: Iterator[list[simulate.SeatResult]], total: int
) -> Iterable[list[simulate.SeatResult]]:
    from tqdm import tqdm

    return tqdm(stream, total=total, unit="game")
