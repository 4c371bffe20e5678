"""How a match begins: created queued with its seats (a fork, with the events it starts from).

What a match is made of (its game, options, seed, seats, class) is decided and checked by
whoever creates it: a challenge and a rated match (tournaments/play/services.py), an
upload's smoke match (``services.smoke_match_for``), a fork (``services.fork_match``), the demo data. Here
the row, its seats and its first events are written in one transaction, and the match's
message is sent once it commits, so a worker never looks for a row that is not there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction

from replays import store
from replays.store import NewEvent
from tournaments.play import dispatch
from tournaments.play.models import Match, Seat


def do_create(
    *, seats: Sequence[Seat], events: Sequence[NewEvent] = (), send: bool = True, **fields: Any
) -> Match:
    """Store a queued match with ``fields``, its ``seats`` (unsaved, in table order, without
    their match) and the ``events`` its stream begins with (a fork's copies of the original's);
    with ``send``, wake a worker on the queue of its class once the caller's transaction
    commits (without, its creator plays it: a smoke match, ``manage.py play --persist``)."""
    with transaction.atomic(savepoint=False):
        match = Match.objects.create(**fields)
        for seat in seats:
            seat.match = match
        Seat.objects.bulk_create(seats)
        if events:
            store.append(match.id, list(events), 0)
        if send:
            match_id, priority = str(match.pk), match.priority
            transaction.on_commit(lambda: dispatch.play_match(match_id, priority))
    return match


def do_import(*, seats: Sequence[Seat], events: Sequence[NewEvent], **fields: Any) -> Match:
    """Store a match read from a document (``manage.py import_match``) with its events exactly
    as written, so the trigger records a finished match's result. It is created running, so no
    worker takes it; one without a final event never ended, and is marked aborted (its row
    alone says so: the document is what the match was, nothing is added to it)."""
    with transaction.atomic(savepoint=False):
        match = Match.objects.create(status=Match.Status.RUNNING, **fields)
        for seat in seats:
            seat.match = match
        Seat.objects.bulk_create(seats)
        store.append(match.id, list(events), 0)
    match.refresh_from_db()
    if match.status != Match.Status.FINISHED:  # no match_finished event: it never ended
        Match.objects.filter(pk=match.pk).update(
            status=Match.Status.ABORTED, error="imported without a final event"
        )
        match.refresh_from_db()
    return match
