"""``manage.py play``: run one match locally with the same engine, sandbox and event format.

    python manage.py play --game brexit --seat my_bot.py --seat builtin:greedy \\
        --seat builtin:random --seed 7 --out match.json [--persist]
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import tempfile
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from games.engine.driver import MatchDriver, MemorySink, SeatPlayer
from games.engine.errors import BadOptions
from games.engine.registry import get
from games.sandbox.player import Sandboxed
from games.sandbox.seat import SeatController
from games.sandbox.upload import UploadError, unpack
from replays import store
from replays.document import match_document
from replays.store import NewEvent
from tournaments import selectors
from tournaments.models import BUILTIN_BOTS, Bot, BotLog, BotVersion, Match, Seat
from tournaments.players import builtin_player


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
            options = info.rules.options(len(specs), json.loads(opts["options"]))
        except (BadOptions, json.JSONDecodeError) as exc:
            raise CommandError(f"--options: {exc}") from None
        seed = opts["seed"] if opts["seed"] is not None else random.getrandbits(62)
        workdir = Path(tempfile.mkdtemp(prefix="backroom-play-"))
        try:
            uploads = [self._upload(spec) for spec in specs]
            players = [
                self._player(info.name, spec, upload, n, len(specs), options, seed, workdir)
                for n, (spec, upload) in enumerate(zip(specs, uploads, strict=True))
            ]
            sink = MemorySink()
            MatchDriver(
                info.rules, seats=len(specs), seed=seed, options=options, players=players, sink=sink
            ).run()
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        outcome = sink.events[-1]["payload"]["outcome"]
        match_id = (
            self._persist(info.name, options, seed, specs, uploads, sink, opts["owner"])
            if opts["persist"]
            else None
        )
        doc = match_document(
            match_id=match_id,
            game=info.name,
            options=options,
            seed=seed,
            seats=selectors.seat_labels(match_id) if match_id else specs,  # as the API names them
            status="finished",
            outcome=outcome,
            events=sink.events,
        )
        if opts["out"]:
            opts["out"].write_text(json.dumps(doc, indent=1))
        for seat, (spec, rank, score) in enumerate(
            zip(specs, outcome["ranks"], outcome["scores"], strict=True)
        ):
            self.stdout.write(f"seat {seat}  rank {rank}  score {score:g}  {spec}")
        verdicts = [
            ev["payload"]
            for ev in sink.events
            if ev["type"] == "bot_verdict" and ev["payload"]["verdict"] != "ok"
        ]
        for v in verdicts:
            self.stdout.write(
                f"  seat {v['seat']} step {v['step']}: {v['verdict']}: {v['detail'][:200]}"
            )
        for seat, step, text in sink.logs:
            self.stderr.write(f"[seat {seat} step {step}] {text.rstrip()}")
        self.stdout.write(
            f"{len(sink.events)} events" + (f", stored as match {match_id}" if match_id else "")
        )

    def _upload(self, spec: str) -> tuple[str, bytes] | None:
        if spec.startswith("builtin:"):
            name = spec.removeprefix("builtin:")
            if name not in BUILTIN_BOTS:
                raise CommandError(
                    f"unknown built-in bot {name!r}; choose from {', '.join(BUILTIN_BOTS)}"
                )
            return None
        path = Path(spec)
        if path.is_dir():
            archive = shutil.make_archive(str(Path(tempfile.mkdtemp()) / "bot"), "zip", path)
            return ("bot.zip", Path(archive).read_bytes())
        if not path.is_file():
            raise CommandError(f"--seat {spec}: no such file, and not builtin:NAME")
        return (path.name, path.read_bytes())

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
            files = unpack(*upload)
        except UploadError as exc:
            raise CommandError(f"--seat {spec}: {exc}") from None
        folder = workdir / f"seat{seat}"
        for rel, data in files.items():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_bytes(data)
        folder.chmod(0o755)
        return Sandboxed(SeatController(folder, game=game, seat=seat, seats=seats, options=options))

    def _persist(
        self,
        game: str,
        options: dict[str, Any],
        seed: int,
        specs: list[str],
        uploads: list[tuple[str, bytes] | None],
        sink: MemorySink,
        owner_name: str,
    ) -> str:
        outcome = sink.events[-1]["payload"]["outcome"]
        owner, _ = get_user_model().objects.get_or_create(username=owner_name)
        engine_version = get(game).rules.engine_version
        with transaction.atomic():
            match = Match.objects.create(
                game=game,
                options=options,
                seed=seed,
                status=Match.Status.FINISHED,
                outcome=outcome,
                last_version=len(sink.events),
            )
            for n, (spec, upload) in enumerate(zip(specs, uploads, strict=True)):
                version = None if upload is None else self._local_version(owner, game, upload)
                Seat.objects.create(
                    match=match,
                    number=n,
                    bot_version=version,
                    builtin="" if version is not None else spec.removeprefix("builtin:"),
                    rank=outcome["ranks"][n],
                    score=outcome["scores"][n],
                )
            store.append(
                match.id,
                [NewEvent.from_engine(ev, engine_version=engine_version) for ev in sink.events],
                0,
            )
            BotLog.objects.bulk_create(
                BotLog(match=match, seat=s, version=v, text=t) for s, v, t in sink.logs
            )
            Match.objects.filter(id=match.id).update(
                started_at=match.created_at, finished_at=match.created_at
            )
        return str(match.id)

    def _local_version(self, owner: Any, game: str, upload: tuple[str, bytes]) -> BotVersion:
        filename, data = upload
        digest = hashlib.sha256(data).hexdigest()
        bot, _ = Bot.objects.get_or_create(
            owner=owner, name=f"local-{Path(filename).stem}"[:60], defaults={"game": game}
        )
        existing = bot.versions.filter(sha256=digest).first()
        if existing is not None:
            return existing
        number = (
            bot.versions.order_by("-number").values_list("number", flat=True).first() or 0
        ) + 1
        return BotVersion.objects.create(
            bot=bot,
            number=number,
            filename=filename,
            upload=data,
            sha256=digest,
            size=len(data),
            status=BotVersion.Status.READY,
        )
