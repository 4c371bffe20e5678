"""``manage.py play``: run one match locally with the same engine, sandbox and event format.

    python manage.py play --game brexit --seat my_bot.py --seat builtin:greedy \\
        --seat builtin:random --seed 7 --out match.json [--persist [--public]]

Without ``--persist`` the match is played in memory by ``games.sandbox.local`` (the
``backroom play`` command plays the same way, with no database). With ``--persist`` the match
takes the platform's one write path: its bots, versions, match and seats are stored by
tournaments.play.services (as an API challenge is) and it is played by the workers' runner
(tournaments.play.runner.play_here), only in this process instead of a worker: claimed first, so
it is ``running`` while it plays, as a worker's match is.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.engine.driver import MatchLimits
from games.sandbox import local
from games.sandbox.local import BadMatch, BadSeat, Lineup, Played
from replays import store
from replays.document import match_document
from tournaments.play import runner, selectors, services
from tournaments.play.models import BotLog
from tournaments.play.players import bot_limits


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
            match = local.lineup(opts["game"], opts["seat"], opts["options"])
        except (BadMatch, BadSeat) as exc:
            raise CommandError(str(exc)) from None
        seed = opts["seed"] if opts["seed"] is not None else random.getrandbits(62)
        if opts["persist"]:
            played = self._play_stored(match, seed, opts)
        else:
            try:
                played = local.play(match, seed, limits=bot_limits(), max_steps=opts["max_steps"])
            except BadSeat as exc:
                raise CommandError(str(exc)) from None
        doc = match_document(
            match_id=played.match_id,
            game=match.info.name,
            options=match.options,
            seed=seed,
            seats=selectors.seat_labels(played.match_id) if played.match_id else match.specs,
            status=played.status,
            outcome=played.outcome,
            events=played.events,
        )
        if opts["out"]:
            opts["out"].write_text(json.dumps(doc, indent=1))
        said = local.report(match.specs, played)
        for line in said.out:
            self.stdout.write(line)
        for line in said.err:
            self.stderr.write(line)
        if played.reason:
            raise CommandError(f"the match was aborted: {played.reason}")

    def _play_stored(self, match: Lineup, seed: int, opts: dict[str, Any]) -> Played:
        """Stored as the API stores a challenge, and played by the workers' runner, here."""
        owner = services.local_owner(username=opts["owner"])
        try:
            seats: list[dict[str, Any]] = []
            for spec, upload in zip(match.specs, match.uploads, strict=True):
                if upload is None:
                    seats.append({"builtin": spec.removeprefix("builtin:")})
                    continue
                version = services.local_version(
                    owner=owner,
                    game=match.info.name,
                    filename=upload[0],
                    data=upload[1],
                    is_public=opts["public"],
                )
                seats.append({"bot_version": version.pk})
            stored = services.create_challenge(
                user=owner,
                game=match.info.name,
                seats=seats,
                options=match.asked,
                seed=seed,
                queue=False,
            )
        except services.Invalid as exc:
            raise CommandError(str(exc)) from None
        result = runner.play_here(stored.id)
        if result not in (runner.RunResult.FINISHED, runner.RunResult.ABORTED):
            raise CommandError(f"match {stored.id} was stored but not played: {result.value}")
        stored.refresh_from_db()
        events = [ev.as_engine_event() for ev in store.read(stored.id)]
        logs = [
            (log.seat, log.version, log.text)
            for log in BotLog.objects.filter(match=stored).order_by("version", "seat")
        ]
        return Played(str(stored.id), stored.status, stored.outcome, events, logs, stored.error)
