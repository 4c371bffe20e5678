"""``manage.py import_match FILE``: load a match document (``play --out``, the download API).

The match gets a fresh id unless the document's is free; its events are
appended exactly as written (``lifecycle.do_import``), so the trigger records the result
of a finished match and the viewer replays it step by step. Seats played by uploaded bots
become placeholder versions (the source is not in the document).
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from games.engine.registry import GAMES
from replays import store
from replays.document import FORMAT
from replays.store import NewEvent
from tournaments.play import lifecycle
from tournaments.play.models import BUILTIN_BOTS, Bot, BotVersion, Match, Seat

PLACEHOLDER = b"# imported from a match document: the source was not included\n"


class Command(BaseCommand):
    help = "Load a match document (as written by `play --out` or /api/matches/{id}/download/)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--owner", default="imported", help="user owning placeholder bots")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            doc = json.loads(opts["file"].read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CommandError(f"{opts['file']}: {exc}") from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise CommandError(f"{opts['file']}: not a {FORMAT} document")
        try:
            self._import(doc, opts)
        except (KeyError, TypeError, AttributeError) as exc:
            # A hand-edited or truncated document: say what is wrong, not a traceback.
            what = f"no {exc}" if isinstance(exc, KeyError) else str(exc)
            raise CommandError(f"{opts['file']}: malformed {FORMAT} document: {what}") from None

    def _import(self, doc: dict[str, Any], opts: dict[str, Any]) -> None:
        meta, events = doc["match"], doc["events"]
        if meta["game"] not in GAMES:
            raise CommandError(f"unknown game {meta['game']!r}")
        if meta.get("seed") is None:
            raise CommandError(
                "the document has no seed (a match still running): nothing to replay"
            )
        rules = GAMES[meta["game"]].rules
        # One transaction with the placeholders: a malformed event leaves nothing behind.
        with transaction.atomic():
            match = lifecycle.do_import(
                seats=[
                    _seat(number, spec, opts["owner"], meta["game"])
                    for number, spec in enumerate(meta["seats"])
                ],
                events=[
                    NewEvent.from_engine(
                        {
                            "type": ev["type"],
                            "actor": ev.get("actor"),
                            "payload": ev["payload"],
                            "visible_to": ev.get("visible_to"),
                            "redacted": ev.get("redacted"),
                        },
                        engine_version=rules.engine_version,
                    )
                    for ev in events
                ],
                id=_free_id(meta.get("id")),
                game=meta["game"],
                options=meta.get("options") or {},
                seed=meta["seed"],
            )
        self.stdout.write(f"imported match {match.pk}: {len(events)} events, {match.status}")


def _free_id(wanted: str | None) -> uuid.UUID:
    try:
        candidate = uuid.UUID(str(wanted))
    except ValueError:
        return uuid.uuid4()
    # Events outlive their match row (the store is append-only): the stream must be empty too.
    taken = Match.objects.filter(pk=candidate).exists() or store.current_version(candidate) > 0
    return uuid.uuid4() if taken else candidate


def _seat(number: int, spec: str, owner: str, game: str) -> Seat:
    """A seat as the document names it: a built-in bot, else a placeholder version."""
    builtin = spec.removeprefix("builtin:") if spec.startswith("builtin:") else ""
    if builtin in BUILTIN_BOTS and builtin:
        return Seat(number=number, builtin=builtin)
    return Seat(number=number, bot_version=_placeholder(owner, game, spec))


def _placeholder(owner_name: str, game: str, spec: str) -> BotVersion:
    owner, _ = get_user_model().objects.get_or_create(username=owner_name)
    bot, _ = Bot.objects.get_or_create(
        owner=owner, name=f"imported {spec}"[:60], defaults={"game": game, "is_public": False}
    )
    version = bot.versions.order_by("-number").first()
    if version is not None:
        return version
    return BotVersion.objects.create(
        bot=bot,
        number=1,
        filename="bot.py",
        upload=PLACEHOLDER,
        sha256="0" * 64,
        size=len(PLACEHOLDER),
        status=BotVersion.Status.REJECTED,
        validation_error="imported from a match document; the source is not included",
    )
