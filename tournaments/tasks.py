"""Celery tasks: thin wrappers that call the runner and the services.

``play_match`` is acknowledged late and rejected on worker loss, so a match
whose worker dies is redelivered; the runner's lease makes a redelivered or
duplicated message harmless (a match is never played twice).
"""

from __future__ import annotations

import uuid

from celery import shared_task


@shared_task(name="tournaments.play_match", acks_late=True, reject_on_worker_lost=True)
def play_match(match_id: str) -> str:
    from tournaments import runner

    return runner.run_match(uuid.UUID(match_id)).value


@shared_task(name="tournaments.validate_bot_version", acks_late=True, reject_on_worker_lost=True)
def validate_bot_version(version_id: int) -> str:
    from tournaments import validation

    return validation.validate(version_id)


@shared_task(name="tournaments.reap_matches")
def reap_matches() -> int:
    from tournaments import runner

    return runner.reap_expired_leases()
