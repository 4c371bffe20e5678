"""Who plays each seat: a built-in bot in-process, or an uploaded version in the sandbox."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from django.conf import settings

from games.engine.builtin import make_player
from games.engine.driver import InProcess, MatchLimits, SeatPlayer
from games.sandbox.limits import Limits
from games.sandbox.player import Sandboxed
from games.sandbox.seat import SeatController
from games.sandbox.upload import unpack
from tournaments.models import BotVersion, Match, Seat


def builtin_player(game: str, name: str, seed: int) -> InProcess:
    """A trusted built-in bot by name (games.engine.builtin: random, greedy, search)."""
    return InProcess(make_player(game, name, seed=seed))


def bot_dir(version: BotVersion) -> Path:
    """The version's files unpacked on disk, once per sha256 (they are immutable)."""
    root = Path(settings.MEDIA_ROOT) / "bots"
    target = root / version.sha256
    if target.is_dir():
        return target
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=root, prefix=".unpack-"))
    try:
        for rel, data in unpack(version.filename, bytes(version.upload)).items():
            path = staging / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        os.chmod(staging, 0o755)  # noqa: S103 (the bot's uid must read the staged copy; it is not writable)
        try:
            staging.rename(target)
        except OSError:  # another worker unpacked it first
            if not target.is_dir():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def bot_limits() -> Limits:
    """Per-move deadline and time bank from the settings (the rest are the sandbox's defaults)."""
    return Limits(move_seconds=settings.BOT_MOVE_SECONDS, bank_seconds=settings.BOT_BANK_SECONDS)


def player_for(match: Match, seat: Seat, seats: int) -> SeatPlayer:
    if seat.bot_version is None:
        return builtin_player(match.game, seat.builtin, seed=match.seed + seat.number)
    controller = SeatController(
        bot_dir(seat.bot_version),
        game=match.game,
        seat=seat.number,
        seats=seats,
        options=match.options,
        limits=bot_limits(),
    )
    return Sandboxed(controller)


def match_limits() -> MatchLimits:
    """The platform's limits on one match (settings MATCH_MAX_STEPS, MATCH_MAX_SECONDS)."""
    default = MatchLimits()
    steps = getattr(settings, "MATCH_MAX_STEPS", None)
    return MatchLimits(
        max_steps=default.max_steps if steps is None else int(steps),
        max_seconds=getattr(settings, "MATCH_MAX_SECONDS", default.max_seconds),
    )
