"""How a match ends without a result: the one place an abort is written.

A result is never written from Python: the ``match_finished`` event is the result, and the
events table's trigger sets the match's status, outcome and seats from it (docs/architecture.md,
"Where a result comes from"). An abort is the other way a match ends: its row says why, and its
stream ends with a ``match_aborted`` event, so a replay shows the same end as the row. The
runner (a match that cannot go on), people's seats (a match nobody played for a day) and the
services (queued matches cancelled: a bot left a ladder, a season was cancelled) all end a match
this way, each naming the states it may take a match from.
"""

from __future__ import annotations

import logging
import uuid

from django.db import transaction
from django.db.models import Q
from django.db.models.functions import Now

from games.engine.platform_events import aborted_event
from games.engine.registry import get
from replays import store
from replays.store import ConcurrencyError, NewEvent
from tournaments.play.models import Match

log = logging.getLogger(__name__)

REASON_CAP = 2000


def abort(match_id: uuid.UUID, game: str, reason: str, *, taken_from: Q) -> bool:
    """End the match aborted with ``reason`` if its row matches ``taken_from`` (its status, its
    lease owner); False, and nothing written, if it does not (another worker holds it, it is
    over). Everything a live match holds is let go: its lease, the seats it waited for."""
    reason = reason[:REASON_CAP]
    with transaction.atomic():
        ended = Match.objects.filter(taken_from, id=match_id).update(
            status=Match.Status.ABORTED,
            finished_at=Now(),
            error=reason,
            lease_owner="",
            lease_expires_at=None,
            waiting_for=[],
            waiting_step=None,
            deadline=None,
        )
        if not ended:
            return False
        event = NewEvent.from_engine(
            aborted_event(reason), engine_version=get(game).rules.engine_version
        )
        try:
            with transaction.atomic():
                store.append(match_id, [event], store.current_version(match_id))
        except ConcurrencyError:
            # A built-in match is played without a lease: its worker is appending, and the
            # match it finishes keeps its result (the events' trigger writes it).
            log.info("match %s: its worker appended first; its result stands", match_id)
    log.warning("match %s aborted: %s", match_id, reason)
    return True
