"""``manage.py play``: run one match locally with the same engine, sandbox and event format.

    python manage.py play --game brexit --seat my_bot.py --seat builtin:greedy \\
        --seat builtin:random --seed 7 --out match.json [--persist [--public]]

With ``--persist`` the match takes the platform's one write path: its bots, versions, match
and seats are stored by tournaments.play.services (as an API challenge is) and it is played by
the workers' runner (tournaments.play.runner.play_here), only in this process instead of a
worker: claimed first, so it is ``running`` while it plays, as a worker's match is.
"""

from __future__ import annotations

import json
import random
import shutil
import tempfile
from pathlib import Path
from typing import Any, NamedTuple

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.engine.driver import MatchDriver, MatchLimits, MatchStopped, MemorySink, SeatPlayer
from games.engine.errors import BadOptions
from games.engine.platform_events import BOT_VERDICT, aborted_event
from games.engine.registry import get
from games.engine.types import Event, Outcome
from games.sandbox.player import Sandboxed
from games.sandbox.seat import SeatController
from replays import store
from replays.document import match_document
from tournaments.play import runner, selectors, services
from tournaments.play.local_bots import BadSeat, builtin_name, read_upload, unpack_into
from tournaments.play.models import BotLog
from tournaments.play.players import bot_limits, builtin_player


class Played(NamedTuple):
    match_id: str | None
    status: str
    outcome: Outcome | None
    events: list[Event]
    logs: list[tuple[int, int, str]]
    reason: str
    """Why the match was aborted ('' if it finished)."""


class Command(BaseCommand):
    help = "Play one match locally (uploaded bots run in the sandbox) and write it as JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", required=True)
        parser.add_argument(
            "--seat", action="append", required=True, help="builtin:NAME, or a bot .py/.zip/folder"
        )
        parser.add_argument("--seed", type=int, default=None)
        parser.add_argument("--options", default="{}", help="game options as JSON")
        parser.add_argument("--out", type=Path, default=None, help="write the match document here")
        parser.add_argument(
            "--persist", action="store_true", help="store it so the site can show it"
        )
        parser.add_argument(
            "--owner", default="local", help="--persist: the user owning local bots"
        )
        parser.add_argument(
            "--max-steps",
            type=int,
            default=MatchLimits().max_steps,
            help="stop the match (aborted) if the game has not ended after this many decisions",
        )
        parser.add_argument(
            "--public",
            action="store_true",
            help="--persist: list a new local bot for everyone (it is private by default)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            info = get(opts["game"])
        except KeyError as exc:
            raise CommandError(str(exc.args[0])) from None
        specs: list[str] = opts["seat"]
        if not info.min_seats <= len(specs) <= info.max_seats:
            raise CommandError(
                f"{info.name} needs {info.min_seats} to {info.max_seats} seats, not {len(specs)}"
            )
        try:
            asked = json.loads(opts["options"])
            options = info.rules.options(len(specs), asked)
        except (BadOptions, json.JSONDecodeError) as exc:
            raise CommandError(f"--options: {exc}") from None
        seed = opts["seed"] if opts["seed"] is not None else random.getrandbits(62)
        uploads = [self._upload(info.name, spec) for spec in specs]
        if opts["persist"]:
            played = self._play_stored(info.name, asked, seed, specs, uploads, opts)
        else:
            played = self._play_here(info.name, options, seed, specs, uploads, opts["max_steps"])
        doc = match_document(
            match_id=played.match_id,
            game=info.name,
            options=options,
            seed=seed,
            seats=selectors.seat_labels(played.match_id) if played.match_id else specs,
            status=played.status,
            outcome=played.outcome,
            events=played.events,
        )
        if opts["out"]:
            opts["out"].write_text(json.dumps(doc, indent=1))
        self._report(specs, played)
        if played.reason:
            raise CommandError(f"the match was aborted: {played.reason}")

    def _play_here(
        self,
        game: str,
        options: dict[str, Any],
        seed: int,
        specs: list[str],
        uploads: list[tuple[str, bytes] | None],
        max_steps: int,
    ) -> Played:
        """In memory, with the workers' driver and sandbox; nothing is stored."""
        rules = get(game).rules
        workdir = Path(tempfile.mkdtemp(prefix="backroom-play-"))
        sink = MemorySink()
        reason = ""
        try:
            players = [
                self._player(game, spec, upload, n, len(specs), options, seed, workdir)
                for n, (spec, upload) in enumerate(zip(specs, uploads, strict=True))
            ]
            driver = MatchDriver(
                rules,
                seats=len(specs),
                seed=seed,
                options=options,
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

    def _play_stored(
        self,
        game: str,
        options: dict[str, Any],
        seed: int,
        specs: list[str],
        uploads: list[tuple[str, bytes] | None],
        opts: dict[str, Any],
    ) -> Played:
        """Stored as the API stores a challenge, and played by the workers' runner, here."""
        owner = services.local_owner(username=opts["owner"])
        try:
            seats: list[dict[str, Any]] = []
            for spec, upload in zip(specs, uploads, strict=True):
                if upload is None:
                    seats.append({"builtin": spec.removeprefix("builtin:")})
                    continue
                version = services.local_version(
                    owner=owner,
                    game=game,
                    filename=upload[0],
                    data=upload[1],
                    is_public=opts["public"],
                )
                seats.append({"bot_version": version.pk})
            match = services.create_challenge(
                user=owner, game=game, seats=seats, options=options, seed=seed, queue=False
            )
        except services.Invalid as exc:
            raise CommandError(str(exc)) from None
        result = runner.play_here(match.id)
        if result not in (runner.RunResult.FINISHED, runner.RunResult.ABORTED):
            raise CommandError(f"match {match.id} was stored but not played: {result.value}")
        match.refresh_from_db()
        events = [ev.as_engine_event() for ev in store.read(match.id)]
        logs = [
            (log.seat, log.version, log.text)
            for log in BotLog.objects.filter(match=match).order_by("version", "seat")
        ]
        return Played(str(match.id), match.status, match.outcome, events, logs, match.error)

    def _report(self, specs: list[str], played: Played) -> None:
        if played.outcome is not None:
            for seat, (spec, rank, score) in enumerate(
                zip(specs, played.outcome["ranks"], played.outcome["scores"], strict=True)
            ):
                self.stdout.write(f"seat {seat}  rank {rank}  score {score:g}  {spec}")
        verdicts = [
            ev["payload"]
            for ev in played.events
            if ev["type"] == BOT_VERDICT and ev["payload"]["verdict"] != "ok"
        ]
        for v in verdicts:
            self.stdout.write(
                f"  seat {v['seat']} step {v['step']}: {v['verdict']}: {v['detail'][:200]}"
            )
        for seat, step, text in played.logs:
            self.stderr.write(f"[seat {seat} step {step}] {text.rstrip()}")
        stored = f", stored as match {played.match_id}" if played.match_id else ""
        self.stdout.write(f"{len(played.events)} events{stored}")

    def _upload(self, game: str, spec: str) -> tuple[str, bytes] | None:
        try:
            return None if builtin_name(game, spec) is not None else read_upload(spec)
        except BadSeat as exc:
            raise CommandError(str(exc)) from None

    def _player(
        self,
        game: str,
        spec: str,
        upload: tuple[str, bytes] | None,
        seat: int,
        seats: int,
        options: dict[str, Any],
        seed: int,
        workdir: Path,
    ) -> SeatPlayer:
        if upload is None:
            return builtin_player(game, spec.removeprefix("builtin:"), seed=seed + seat)
        try:
            folder = unpack_into(workdir / f"seat{seat}", spec, upload)
        except BadSeat as exc:
            raise CommandError(str(exc)) from None
        controller = SeatController(
            folder, game=game, seat=seat, seats=seats, options=options, limits=bot_limits()
        )
        return Sandboxed(controller)
