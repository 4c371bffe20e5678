"""Validating an uploaded version: it must compile and finish a smoke match in the sandbox.

The smoke match is played and stored like any other match (by tournaments.runner),
unrated and private to the bot's owner and staff, so the error's "step N" can be
read in its events and logs.
"""

from __future__ import annotations

import logging
import secrets

from django.db import transaction
from django.utils import timezone

from games.engine.platform_events import BOT_VERDICT
from games.engine.registry import get
from games.engine.storable import storable
from games.sandbox.readiness import isolation_status
from games.sandbox.upload import UploadError, compile_check, unpack
from replays import store
from tournaments import runner
from tournaments.models import BotVersion, Match, Seat

log = logging.getLogger(__name__)


class SmokeMatchBusy(Exception):
    """Another worker is playing this version's smoke match (a redelivered validation)."""


def smoke_match_for(version: BotVersion) -> Match:
    """The version's unfinished smoke match (an interrupted validation resumes it), or a new one.

    The uploaded version takes seat 0, built-in random bots the others. Each smoke match
    draws its own seed (one fixed seed let a bot pass by surviving a single deal); the match
    row keeps it, and its match_finished event reveals it, so the run replays exactly.
    """
    unfinished = (Match.Status.QUEUED, Match.Status.RUNNING)
    match = (
        Match.objects.filter(validation_of=version, status__in=unfinished)
        .order_by("-created_at")
        .first()
    )
    if match is not None:
        return match
    info = get(version.bot.game)
    seats = max(info.min_seats, min(3, info.max_seats))
    with transaction.atomic():
        match = Match.objects.create(
            game=info.name,
            options={},
            seed=secrets.randbits(63),
            rated=False,
            created_by=version.bot.owner,
            validation_of=version,
        )
        Seat.objects.bulk_create(
            [Seat(match=match, number=0, bot_version=version)]
            + [Seat(match=match, number=n, builtin="random") for n in range(1, seats)]
        )
    return match


def smoke_error(version: BotVersion) -> str:
    """Why the version is not fit to play, or '' if it is."""
    try:
        compile_check(unpack(version.filename, bytes(version.upload)))
    except UploadError as exc:
        return str(exc)
    match = smoke_match_for(version)
    result = runner.run_match(match.pk)
    if result in (runner.RunResult.BUSY, runner.RunResult.LEASE_LOST, runner.RunResult.REFUSED):
        raise SmokeMatchBusy(f"smoke match {match.pk}: {result.value}")
    match.refresh_from_db(fields=["status", "error"])
    if match.status == Match.Status.ABORTED:
        return f"smoke match {match.pk} aborted: {match.error}"
    for ev in store.read(match.pk):
        if ev.type == BOT_VERDICT and ev.payload["verdict"] != "ok":
            p = ev.payload
            return f"smoke match {match.pk}, step {p['step']}: {p['verdict']}: {p['detail']}"
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
    try:
        error = smoke_error(version)
    except SmokeMatchBusy as exc:  # a duplicate of this task is playing it and will decide
        log.warning("bot version %s left pending: %s", version_id, exc)
        return version.status
    except Exception as exc:
        # Nothing retries a validation: a version left pending would stay so for ever, and no
        # match can seat it. Rejected with the reason, the owner can upload it again.
        log.exception("bot version %s: validation failed", version_id)
        error = f"validation failed: {type(exc).__name__}: {exc}"
    version.status = BotVersion.Status.REJECTED if error else BotVersion.Status.READY
    # An exception's message may quote a bot's text: a NUL in it would fail the save, and the
    # version would stay pending for ever.
    version.validation_error = storable(error)
    version.validated_at = timezone.now()
    version.save(update_fields=["status", "validation_error", "validated_at"])
    log.info("bot version %s: %s %s", version_id, version.status, error)
    return version.status
