"""How a match ends without a result: aborted by its worker, abandoned by its people, cancelled.

A result is never written from Python: the ``match_finished`` event is the result, and the
events table's trigger sets the match's status, outcome and seats from it
(tournaments/play/projection.py). An abort is the other way a match ends: its row says why,
and its stream ends with a ``match_aborted`` event in the same transaction, so a replay shows
the same end as the row. Each way names the states it may take a match from; the UPDATE's
condition is the check (a read before it would race with the workers), and each returns
whether it took place.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

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


def do_abort(match: Match, owner: str, reason: str) -> bool:
    """End a match ``owner`` holds, or a queued one, without a result (a platform limit, a
    fault, a smoke match not worth playing): a leased match only by its lease owner; an
    unleased (built-in) one by anyone while it is still queued."""
    mine = Q(status=Match.Status.RUNNING, lease_owner=owner) | Q(status=Match.Status.QUEUED)
    return _end(match.id, match.game, reason, taken_from=mine)


def do_abandon(match: Match, reason: str) -> bool:
    """End a match that waits for people nobody played (tournaments.play.reaper.reap_people)."""
    return _end(match.id, match.game, reason, taken_from=Q(status=Match.Status.WAITING))


def do_cancel(matches: Any, reason: str) -> int:
    """Cancel the queued ones among ``matches`` (a queryset): they end aborted, never played.

    A match that a worker already started is left to finish. The aborted event in the
    stream ends a built-in match that a worker is playing without a lease: its next append
    meets a stream that moved on and stops.
    """
    queued = matches.filter(status=Match.Status.QUEUED).values_list("id", "game").distinct()
    return sum(
        _end(match_id, game, f"cancelled: {reason}", taken_from=Q(status=Match.Status.QUEUED))
        for match_id, game in list(queued)
    )


def _end(match_id: uuid.UUID, game: str, reason: str, *, taken_from: Q) -> bool:
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
