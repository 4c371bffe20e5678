"""Who plays each seat: a built-in bot in-process, or an uploaded version in the sandbox."""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import timezone

from games.engine.builtin import make_player
from games.engine.decision import Move
from games.engine.driver import InProcess, MatchLimits, SeatPlayer
from games.engine.rules import Rules
from games.engine.types import Action, Outcome
from games.sandbox.isolation import PRIVATE_DIR, write_private
from games.sandbox.limits import Limits
from games.sandbox.player import Sandboxed
from games.sandbox.seat import SeatController
from games.sandbox.upload import unpack
from tournaments.play.models import BotVersion, Match, Seat


def builtin_player(game: str, name: str, seed: int) -> InProcess:
    """A trusted built-in bot by name (each game's own list, found through the registry)."""
    return InProcess(make_player(game, name, seed=seed))


def bot_dir(version: BotVersion) -> Path:
    """The version's files unpacked on disk, once per sha256 (they are immutable).

    Readable by the platform's user only (MEDIA_ROOT/bots is 0700, files 0600): the sandbox
    reads a staged copy (games.sandbox.isolation.stage), never these.
    """
    root = Path(settings.MEDIA_ROOT) / "bots"
    root.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    os.chmod(root, PRIVATE_DIR)  # also closes a folder made 0755 before sources were private
    target = root / version.sha256
    if target.is_dir():
        return target
    staging = Path(tempfile.mkdtemp(dir=root, prefix=".unpack-"))  # 0700
    try:
        write_private(staging, unpack(version.filename, bytes(version.upload)))
        try:
            staging.rename(target)
        except OSError:  # another worker unpacked it first
            if not target.is_dir():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def bot_limits() -> Limits:
    """Deadlines of a move, the bank and a start from the settings (the rest are the sandbox's
    defaults)."""
    return Limits(
        move_seconds=settings.BOT_MOVE_SECONDS,
        bank_seconds=settings.BOT_BANK_SECONDS,
        start_seconds=settings.BOT_START_SECONDS,
    )


TIMEOUT = "timeout"
"""A person's verdict when the deadline passed: the same word as a bot's (docs/bots.md)."""


@dataclass
class HumanSeat:
    """A person's seat: they answer through the API, so the worker never waits for them.

    ``move`` says "later" (None) and the match suspends, except once for a decision whose
    deadline has passed (``expired``): then the game's default action is played with the
    verdict ``timeout``, as for a bot. A person is never disqualified: a match nobody plays
    any more ends aborted after a day (tournaments.play.reaper.reap_people).
    """

    expired: bool = False
    move_seconds: int = 600
    external: bool = True
    strikes: int = 0

    def move(self, rules: Rules[Any], state: Any, seat: int, rng: random.Random) -> Move | None:
        if not self.expired:
            return None
        self.expired = False  # only the decision that timed out: the next one waits again
        self.strikes += 1
        detail = (
            f"no action within the {self.move_seconds}-second deadline:"
            " the default action was played"
        )
        return Move(rules.default_action(state, seat), verdict=TIMEOUT, detail=detail)

    def strike(self, verdict: str, detail: str, default: Action) -> Move:
        self.strikes += 1  # the default action itself refused: an engine fault, kept visible
        return Move(default, verdict=verdict, detail=detail)

    def close(self, outcome: Outcome | None) -> str:
        return ""


def take_expired(match: Match) -> frozenset[int]:
    """The people's seats whose decision's deadline had passed when the match was queued."""
    if match.deadline is None or match.deadline > timezone.now():
        return frozenset()
    return frozenset(match.waiting_for or ())


def human_player(match: Match, seat: Seat, expired: frozenset[int]) -> HumanSeat:
    """A person's seat; ``expired``: people's seats whose decision's deadline has passed."""
    return HumanSeat(expired=seat.number in expired, move_seconds=match.human_move_seconds)


def player_for(match: Match, seat: Seat, seats: int) -> SeatPlayer:
    """Who plays a bot's seat (a person's is ``human_player``)."""
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
