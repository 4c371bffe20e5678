"""Bots on an author's disk, played as a worker plays them: ``manage.py play``/``simulate`` and
the ``backroom`` command's ``play``/``simulate`` (backroom_cli) share this, with no database.

A seat is ``builtin:NAME`` or a path to a bot (a ``.py`` file, a ``.zip``, or a folder holding
``bot.py``); a path is read as the upload it would be, and unpacked as a worker unpacks it. An
uploaded bot plays in the platform's sandbox, a built-in one in-process, under the match driver
the workers use.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from games.engine import simulate
from games.engine.builtin import builtin_names, make_player
from games.engine.driver import (
    InProcess,
    MatchDriver,
    MatchLimits,
    MatchStopped,
    MemorySink,
    SeatPlayer,
)
from games.engine.errors import BadOptions
from games.engine.platform_events import BOT_VERDICT, aborted_event
from games.engine.registry import GameInfo, get
from games.engine.types import Event, Outcome
from games.sandbox.isolation import PRIVATE_DIR, write_private
from games.sandbox.limits import Limits
from games.sandbox.player import Sandboxed
from games.sandbox.seat import SeatController
from games.sandbox.upload import UploadError, unpack

BUILTIN_PREFIX = "builtin:"


class BadSeat(ValueError):
    """A seat that names no built-in bot and no bot on disk; the message says which."""


class BadMatch(ValueError):
    """A game, a number of seats or options the game refuses; the message says which."""


def builtin_name(game: str, spec: str) -> str | None:
    """The built-in bot ``spec`` names (``builtin:NAME``), None for a path; BadSeat if unknown."""
    if not spec.startswith(BUILTIN_PREFIX):
        return None
    name = spec.removeprefix(BUILTIN_PREFIX)
    if name not in builtin_names(game):
        raise BadSeat(
            f"unknown built-in bot {name!r}; choose from {', '.join(builtin_names(game))}"
        )
    return name


def read_upload(spec: str) -> tuple[str, bytes]:
    """The file name and bytes that uploading ``spec`` would send (a folder is zipped)."""
    path = Path(spec)
    if path.is_dir():
        with tempfile.TemporaryDirectory() as tmp:
            archive = shutil.make_archive(str(Path(tmp) / "bot"), "zip", path)
            return ("bot.zip", Path(archive).read_bytes())
    if not path.is_file():
        raise BadSeat(f"--seat {spec}: no such file, and not builtin:NAME")
    return (path.name, path.read_bytes())


def unpack_into(folder: Path, spec: str, upload: tuple[str, bytes]) -> Path:
    """Write the upload's files into ``folder`` as a worker does; BadSeat if it is no bot."""
    try:
        files = unpack(*upload)
    except UploadError as exc:
        raise BadSeat(f"--seat {spec}: {exc}") from None
    folder.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    folder.chmod(PRIVATE_DIR)
    write_private(folder, files)
    return folder


@dataclass(frozen=True)
class Lineup:
    """A local match's game, seats (as given) and options, checked against the game."""

    info: GameInfo
    specs: list[str]
    asked: dict[str, Any]
    """The options as given (a stored match keeps these; the game fills in the rest)."""
    options: dict[str, Any]
    uploads: list[tuple[str, bytes] | None]
    """Each seat's upload (file name, bytes), None for a built-in bot."""


def lineup(game: str, specs: list[str], options_json: str) -> Lineup:
    """Checks the game, the number of seats, the options and every seat; BadMatch or BadSeat."""
    try:
        info = get(game)
    except KeyError as exc:
        raise BadMatch(str(exc.args[0])) from None
    if not info.min_seats <= len(specs) <= info.max_seats:
        raise BadMatch(
            f"{info.name} needs {info.min_seats} to {info.max_seats} seats, not {len(specs)}"
        )
    try:
        asked = json.loads(options_json)
        options = info.rules.options(len(specs), asked)
    except (BadOptions, json.JSONDecodeError) as exc:
        raise BadMatch(f"--options: {exc}") from None
    uploads = [
        None if builtin_name(info.name, spec) is not None else read_upload(spec) for spec in specs
    ]
    return Lineup(info, specs, asked, options, uploads)


@dataclass(frozen=True)
class Played:
    match_id: str | None
    status: str
    outcome: Outcome | None
    events: list[Event]
    logs: list[tuple[int, int, str]]
    reason: str
    """Why the match was aborted ('' if it finished)."""


def play(
    match: Lineup,
    seed: int,
    *,
    limits: Limits,
    max_steps: int = MatchLimits().max_steps,
) -> Played:
    """Play one match in memory, with the workers' driver and sandbox; nothing is stored."""
    game = match.info.name
    workdir = Path(tempfile.mkdtemp(prefix="backroom-play-"))
    sink = MemorySink()
    reason = ""
    try:
        players = [
            _player(game, spec, upload, n, len(match.specs), match.options, seed, workdir, limits)
            for n, (spec, upload) in enumerate(zip(match.specs, match.uploads, strict=True))
        ]
        driver = MatchDriver(
            match.info.rules,
            seats=len(match.specs),
            seed=seed,
            options=match.options,
            players=players,
            sink=sink,
            limits=MatchLimits(max_steps=max_steps),
        )
        try:
            driver.run()
        except MatchStopped as exc:  # the events played so far were flushed first
            reason = str(exc)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if reason:
        events = [*sink.events, aborted_event(reason)]
        return Played(None, "aborted", None, events, sink.logs, reason)
    outcome = sink.events[-1]["payload"]["outcome"]
    return Played(None, "finished", outcome, sink.events, sink.logs, "")


def _player(
    game: str,
    spec: str,
    upload: tuple[str, bytes] | None,
    seat: int,
    seats: int,
    options: dict[str, Any],
    seed: int,
    workdir: Path,
    limits: Limits,
) -> SeatPlayer:
    if upload is None:
        return InProcess(make_player(game, spec.removeprefix(BUILTIN_PREFIX), seed=seed + seat))
    folder = unpack_into(workdir / f"seat{seat}", spec, upload)
    controller = SeatController(
        folder, game=game, seat=seat, seats=seats, options=options, limits=limits
    )
    return Sandboxed(controller)


@dataclass(frozen=True)
class Report:
    """What a played match says: ranks and non-ok verdicts (``out``), the bots' stderr (``err``)."""

    out: list[str] = field(default_factory=list)
    err: list[str] = field(default_factory=list)


def report(specs: list[str], played: Played) -> Report:
    said = Report()
    if played.outcome is not None:
        for seat, (spec, rank, score) in enumerate(
            zip(specs, played.outcome["ranks"], played.outcome["scores"], strict=True)
        ):
            said.out.append(f"seat {seat}  rank {rank}  score {score:g}  {spec}")
    for ev in played.events:
        v = ev["payload"]
        if ev["type"] == BOT_VERDICT and v["verdict"] != "ok":
            said.out.append(
                f"  seat {v['seat']} step {v['step']}: {v['verdict']}: {v['detail'][:200]}"
            )
    for seat, step, text in played.logs:
        said.err.append(f"[seat {seat} step {step}] {text.rstrip()}")
    stored = f", stored as match {played.match_id}" if played.match_id else ""
    said.out.append(f"{len(played.events)} events{stored}")
    return said


# simulate: many games


@dataclass(frozen=True)
class Seating:
    """Makes each seat's player (simulate.PlayerFactory); picklable, for ``jobs`` > 1."""

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


@dataclass(frozen=True)
class Simulated:
    lineup: list[str]
    """The seats as named in the table (``builtin:`` dropped)."""
    games: int
    results: list[simulate.SeatResult]
    stats: list[simulate.BotStats]
    on_disk: list[str]
    """The seats that are bots on disk (played in the sandbox)."""

    def lines(self, game: str, play_command: str) -> list[str]:
        """The summary for people: the table, games stopped, each bot on disk's faults
        (``play_command`` shows each one)."""
        out = [
            f"{game}: {self.games} games, seats {' '.join(self.lineup)} (rotating), "
            "ties split fractionally"
        ]
        stopped = self.games - len(self.results) // len(self.lineup)
        if stopped:
            out.append(f"{stopped} games stopped by the step limit count for no one")
        out.append(simulate.table(self.stats))
        for bot in self.on_disk:
            faults = sum(r.faults for r in self.results if r.bot == bot)
            out.append(
                f"{bot}: {faults} decisions with a verdict other than ok"
                + (f" ({play_command} shows each one)" if faults else "")
            )
        return out

    def as_json(self, game: str) -> str:
        return simulate.as_json(game, self.lineup, self.games, self.stats)


Progress = Callable[[Iterator[list[simulate.SeatResult]], int], Iterable[list[simulate.SeatResult]]]


def run_simulation(
    game: str,
    specs: list[str],
    games: int,
    *,
    seed: int,
    limits: Limits,
    jobs: int = 1,
    budget_ms: float | None = None,
    iterations: int | None = None,
    progress: Progress | None = None,
) -> Simulated:
    """Play ``games`` games, seats rotating; BadMatch or BadSeat says what is wrong.

    Built-in bots alone play in-process (the faster way); once a seat is a bot on disk, every
    game goes through the match driver, that bot in the sandbox under ``limits``.
    """
    if games < 1:
        raise BadMatch("--games must be at least 1")
    try:
        get(game)
    except KeyError as exc:
        raise BadMatch(str(exc.args[0])) from None
    workdir = Path(tempfile.mkdtemp(prefix="backroom-simulate-"))
    try:
        folders: dict[str, str] = {}
        try:
            for n, spec in enumerate(specs):
                if spec in builtin_names(game) or builtin_name(game, spec) is not None:
                    continue
                if spec not in folders:
                    folder = unpack_into(workdir / f"bot{n}", spec, read_upload(spec))
                    folders[spec] = str(folder)
        except BadSeat as exc:
            raise BadSeat(f"{exc}; built-in: {', '.join(sorted(builtin_names(game)))}") from None
        seating = (
            Seating(game, folders, limits, budget_ms=budget_ms, iterations=iterations)
            if folders
            else None
        )
        named = [spec.removeprefix(BUILTIN_PREFIX) for spec in specs]
        try:
            results = simulate.run(
                game,
                named,
                games,
                seed=seed,
                jobs=max(1, jobs),
                budget_ms=budget_ms,
                iterations=iterations,
                progress=progress,
                make=seating,
            )
        except (ValueError, KeyError) as exc:
            raise BadMatch(str(exc.args[0] if exc.args else exc)) from exc
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return Simulated(named, games, results, simulate.summarise(results), sorted(folders))
