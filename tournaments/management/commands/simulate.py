"""``manage.py simulate``: many games between bots, win rates and mean ranks.

Thin: the games and the statistics are ``games.engine.simulate``; this only
parses arguments, seats the bots, shows a progress bar and prints. Built-in bots
alone play in-process; once a seat is a bot on disk (``--seat path/to/bot.py``)
every game goes through the match driver, that bot in the platform's sandbox
under the platform's limits, exactly as a worker would play it.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.engine import simulate
from games.engine.builtin import builtin_names, make_player
from games.engine.driver import InProcess, SeatPlayer
from games.engine.registry import GAMES
from games.sandbox.limits import Limits
from games.sandbox.player import Sandboxed
from games.sandbox.seat import SeatController
from tournaments.play.local_bots import (
    BUILTIN_PREFIX,
    BadSeat,
    builtin_name,
    read_upload,
    unpack_into,
)
from tournaments.play.players import bot_limits


@dataclass(frozen=True)
class Seating:
    """Makes each seat's player (simulate.PlayerFactory); picklable, for --jobs."""

    game: str
    folders: dict[str, str]
    """Seat as given (a path) -> its unpacked bot folder."""
    limits: Limits
    budget_ms: float | None = None
    iterations: int | None = None

    def __call__(self, bot: str, seat: int, seats: int, seed: int) -> SeatPlayer:
        folder = self.folders.get(bot)
        if folder is None:
            name = bot.removeprefix(BUILTIN_PREFIX)
            act = make_player(
                self.game, name, budget_ms=self.budget_ms, iterations=self.iterations, seed=seed
            )
            return InProcess(act)
        controller = SeatController(
            folder, game=self.game, seat=seat, seats=seats, options={}, limits=self.limits
        )
        return Sandboxed(controller)


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
        lineup: list[str] = options["seat"]
        game: str = options["game"]
        if options["games"] < 1:
            raise CommandError("--games must be at least 1")
        workdir = Path(tempfile.mkdtemp(prefix="backroom-simulate-"))
        try:
            seating = self._seating(game, lineup, workdir, options)
            lineup = [spec.removeprefix(BUILTIN_PREFIX) for spec in lineup]
            results = self._run(game, lineup, options, seating)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        stats = simulate.summarise(results)
        self.stdout.write(
            f"{game}: {options['games']} games, seats {' '.join(lineup)} (rotating), "
            "ties split fractionally"
        )
        stopped = options["games"] - len(results) // len(lineup)
        if stopped:
            self.stdout.write(f"{stopped} games stopped by the step limit count for no one")
        self.stdout.write(simulate.table(stats))
        for bot in sorted(seating.folders) if seating else []:
            faults = sum(r.faults for r in results if r.bot == bot)
            self.stdout.write(
                f"{bot}: {faults} decisions with a verdict other than ok"
                + (" (manage.py play shows each one)" if faults else "")
            )
        if options["json"]:
            self.stdout.write(simulate.as_json(game, lineup, options["games"], stats))

    def _seating(
        self, game: str, lineup: list[str], workdir: Path, options: dict[str, Any]
    ) -> Seating | None:
        """None when every seat is a built-in bot (they play in-process, the faster way)."""
        folders: dict[str, str] = {}
        try:
            for n, spec in enumerate(lineup):
                if spec in builtin_names(game) or builtin_name(game, spec) is not None:
                    continue
                if spec not in folders:
                    folder = unpack_into(workdir / f"bot{n}", spec, read_upload(spec))
                    folders[spec] = str(folder)
        except BadSeat as exc:
            raise CommandError(
                f"{exc}; built-in: {', '.join(sorted(builtin_names(game)))}"
            ) from None
        if not folders:
            return None
        return Seating(
            game,
            folders,
            bot_limits(),
            budget_ms=options["budget_ms"],
            iterations=options["iterations"],
        )

    def _run(
        self, game: str, lineup: list[str], options: dict[str, Any], seating: Seating | None
    ) -> list[simulate.SeatResult]:
        try:
            return simulate.run(
                game,
                lineup,
                options["games"],
                seed=options["seed"],
                jobs=max(1, options["jobs"]),
                budget_ms=options["budget_ms"],
                iterations=options["iterations"],
                progress=None if options["no_progress"] else _bar,
                make=seating,
            )
        except (ValueError, KeyError) as exc:
            raise CommandError(str(exc.args[0] if exc.args else exc)) from exc


def _bar(
    stream: Iterator[list[simulate.SeatResult]], total: int
) -> Iterable[list[simulate.SeatResult]]:
    from tqdm import tqdm

    return tqdm(stream, total=total, unit="game")
