"""``manage.py simulate``: many games between bots, win rates and mean ranks.

Thin: the games are ``games.sandbox.local.run_simulation`` (the ``backroom simulate`` command
runs the same), the statistics ``games.engine.simulate``; this only parses arguments, shows a
progress bar and prints. Built-in bots alone play in-process; once a seat is a bot on disk
(``--seat path/to/bot.py``) every game goes through the match driver, that bot in the
platform's sandbox under the platform's limits, exactly as a worker would play it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.engine import simulate
from games.engine.builtin import builtin_names
from games.engine.registry import GAMES
from games.sandbox.local import BadMatch, BadSeat, run_simulation
from tournaments.play.players import bot_limits


class Command(BaseCommand):
    help = (
        "Play many games between bots (seats rotate across games) and print win rates "
        "(Wilson 95% CI, shared wins split) and mean ranks (95% CI). A seat is a built-in bot "
        "or a bot on disk, which plays in the platform's sandbox."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", required=True, choices=sorted(GAMES))
        parser.add_argument(
            "--seat",
            action="append",
            required=True,
            help="a bot per seat, in seat order (repeat): a built-in ("
            + ", ".join(sorted(builtin_names("brexit")))
            + ", or builtin:NAME) or a bot's .py/.zip/folder",
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
        game: str = options["game"]
        try:
            done = run_simulation(
                game,
                options["seat"],
                options["games"],
                seed=options["seed"],
                limits=bot_limits(),
                jobs=options["jobs"],
                budget_ms=options["budget_ms"],
                iterations=options["iterations"],
                progress=None if options["no_progress"] else _bar,
            )
        except (BadMatch, BadSeat) as exc:
            raise CommandError(str(exc)) from None
        for line in done.lines(game, "manage.py play"):
            self.stdout.write(line)
        if options["json"]:
            self.stdout.write(done.as_json(game))


def _bar(
    stream: Iterator[list[simulate.SeatResult]], total: int
) -> Iterable[list[simulate.SeatResult]]:
    from tqdm import tqdm

    return tqdm(stream, total=total, unit="game")
