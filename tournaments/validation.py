"""Validating an uploaded bot version: it must compile and finish a smoke match in the sandbox."""

from __future__ import annotations

import logging

from django.utils import timezone

from games.engine.driver import MatchDriver, MatchStopped, MemorySink, SeatPlayer
from games.engine.registry import get
from games.sandbox.isolation import isolation_status
from games.sandbox.player import Sandboxed
from games.sandbox.seat import SeatController
from games.sandbox.upload import UploadError, compile_check, unpack
from tournaments.models import BotVersion
from tournaments.players import bot_dir, bot_limits, builtin_player, match_limits

log = logging.getLogger(__name__)

SMOKE_SEED = 20261129


def smoke_error(version: BotVersion) -> str:
    """Why the version is not fit to play, or '' if it is."""
    try:
        compile_check(unpack(version.filename, bytes(version.upload)))
    except UploadError as exc:
        return str(exc)
    info = get(version.bot.game)
    seats = max(info.min_seats, min(3, info.max_seats))
    controller = SeatController(
        bot_dir(version), game=info.name, seat=0, seats=seats, options={}, limits=bot_limits()
    )
    players: list[SeatPlayer] = [Sandboxed(controller)]
    players += [builtin_player(info.name, "random", seed=SMOKE_SEED + s) for s in range(1, seats)]
    sink = MemorySink()
    driver = MatchDriver(
        info.rules,
        seats=seats,
        seed=SMOKE_SEED,
        options={},
        players=players,
        sink=sink,
        limits=match_limits(),
    )
    try:
        driver.run()
    except MatchStopped as exc:
        return f"smoke match: {exc}"
    for ev in sink.events:
        if ev["type"] == "bot_verdict" and ev["payload"]["verdict"] != "ok":
            payload = ev["payload"]
            return f"smoke match, step {payload['step']}: {payload['verdict']}: {payload['detail']}"
    return ""


def validate(version_id: int) -> str:
    """Set the version's status to ready or rejected (with the exact error); returns it."""
    version = BotVersion.objects.select_related("bot").get(id=version_id)
    if version.status != BotVersion.Status.PENDING:
        return version.status
    isolated, why = isolation_status()
    if not isolated:  # a host problem, not the author's: leave it pending for a worker that can
        log.error(
            "bot version %s left pending: this worker cannot run uploaded bots: %s", version_id, why
        )
        return version.status
    error = smoke_error(version)
    version.status = BotVersion.Status.REJECTED if error else BotVersion.Status.READY
    version.validation_error = error
    version.validated_at = timezone.now()
    version.save(update_fields=["status", "validation_error", "validated_at"])
    log.info("bot version %s: %s %s", version_id, version.status, error)
    return version.status
