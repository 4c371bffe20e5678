"""Validating an uploaded version: it must compile and finish a smoke match in the sandbox.

The smoke match is played and stored like any other match (by tournaments.play.runner),
unrated and private to the bot's owner and staff, so the error's "step N" can be
read in its events and logs.

The upload queues its smoke match at once (``services.smoke_match_for``, class
``VALIDATION``), so the workers see it as work waiting, ahead of challenges and ladders
(tournaments/play/scheduler.py). The validation task's ``prepare`` compiles the upload (a version
that does not compile is rejected without playing) and finds the smoke match; whichever worker
the scheduler gives that match to plays it and decides the version (``validate`` with
``smoke``). ``validate`` alone does the whole thing in the calling process.
"""

from __future__ import annotations

import logging
import uuid

from django.utils import timezone

from games.engine.platform_events import BOT_VERDICT
from games.engine.storable import storable
from games.sandbox.readiness import isolation_status
from games.sandbox.upload import UploadError, compile_check, unpack
from replays import store
from tournaments.play import lifecycle, runner, services, webhooks
from tournaments.play.models import BotVersion, Match

log = logging.getLogger(__name__)


class SmokeMatchBusy(Exception):
    """Another worker is playing this version's smoke match (a redelivered validation)."""


def compile_error(version: BotVersion) -> str:
    """Why the upload does not compile (the file and line), or ''. Nothing of it runs."""
    try:
        compile_check(unpack(version.filename, bytes(version.upload)))
    except UploadError as exc:
        return str(exc)
    return ""


def smoke_error(
    version: BotVersion, *, smoke: uuid.UUID | None = None, owner: str | None = None
) -> str:
    """Why the version is not fit to play, or '' if it is.

    ``smoke``: its smoke match, which ``owner`` has claimed already (the scheduler's pick).
    """
    error = compile_error(version)
    if error:
        if smoke is not None and owner is not None:
            lifecycle.do_abort(Match.objects.get(pk=smoke), owner, f"not played: {error}")
        return error
    match = services.smoke_match_for(version) if smoke is None else Match.objects.get(pk=smoke)
    result = runner.run_match(match.pk, owner, claimed=smoke is not None)
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


def prepare(version_id: int) -> uuid.UUID | None:
    """The smoke match a worker should play for the pending version (queued, made if need be),
    or None: the version is decided already, or rejected now because it does not compile, or
    this worker cannot sandbox bots (it stays pending for one that can)."""
    version = BotVersion.objects.select_related("bot").get(id=version_id)
    if version.status != BotVersion.Status.PENDING or not _can_sandbox(version_id):
        return None
    error = compile_error(version)
    if error:
        # Its smoke match, queued at the upload, is never played (nor taken by a worker).
        smoke = Match.objects.filter(validation_of=version)
        services.cancel_queued_matches(matches=smoke, reason=f"not played: {error}")
        _decide(version, error)
        return None
    return services.smoke_match_for(version).pk


def _can_sandbox(version_id: int) -> bool:
    isolated, why = isolation_status()
    if not isolated:  # a host problem, not the author's: leave it pending for a worker that can
        log.error(
            "bot version %s left pending: this worker cannot run uploaded bots: %s", version_id, why
        )
    return isolated


def validate(version_id: int, *, smoke: uuid.UUID | None = None, owner: str | None = None) -> str:
    """Set the version's status to ready or rejected (with the exact error); returns it.

    ``smoke`` and ``owner``: the version's smoke match, claimed by ``owner`` already (the
    scheduler's pick); without them the smoke match is found or made, and claimed, here.
    """
    version = BotVersion.objects.select_related("bot").get(id=version_id)
    if version.status != BotVersion.Status.PENDING:
        if smoke is not None and owner is not None:  # a late duplicate: it decides nothing
            lifecycle.do_abort(
                Match.objects.get(pk=smoke), owner, f"not played: {version} is decided"
            )
        return version.status
    if not _can_sandbox(version_id):
        if smoke is not None and owner is not None:
            lifecycle.do_release(smoke, owner)
        return version.status
    try:
        error = smoke_error(version, smoke=smoke, owner=owner)
    except SmokeMatchBusy as exc:  # a duplicate of this task is playing it and will decide
        log.warning("bot version %s left pending: %s", version_id, exc)
        return version.status
    except Exception as exc:
        # Nothing retries a validation: a version left pending would stay so for ever, and no
        # match can seat it. Rejected with the reason, the owner can upload it again.
        log.exception("bot version %s: validation failed", version_id)
        error = f"validation failed: {type(exc).__name__}: {exc}"
    return _decide(version, error)


def _decide(version: BotVersion, error: str) -> str:
    version.status = BotVersion.Status.REJECTED if error else BotVersion.Status.READY
    # An exception's message may quote a bot's text: a NUL in it would fail the save, and the
    # version would stay pending for ever.
    version.validation_error = storable(error)
    version.validated_at = timezone.now()
    version.save(update_fields=["status", "validation_error", "validated_at"])
    if error:
        webhooks.notify_rejected(version)
    log.info("bot version %s: %s %s", version.pk, version.status, error)
    return version.status
