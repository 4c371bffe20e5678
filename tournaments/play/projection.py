"""The result projection: how a match's row and seats follow its event stream, in SQL and in Python.

No Python code writes a match's result. Appending events fires a statement trigger on the
events table, ``tournaments_follow_events`` (``RESULT_TRIGGER``), which in the same statement
sets the match's ``last_version`` and, for a ``match_finished`` event, its status, outcome,
start and end times, lets its lease go, and writes each seat's rank and score from the
outcome. So a result exists exactly when, and only if, its final event does. The other end of
a match, an abort, is written by the lifecycle (tournaments/play/lifecycle/ends.py), row and
``match_aborted`` event in one transaction.

``FUNCTION`` is the trigger function's SQL, read here; ``project`` is its Python twin, which
``manage.py verify`` checks every stored row against (tournaments/rating/integrity.py), and
which also says what an abort leaves. Migrations keep frozen copies of the SQL (0003 installed
it); tests/tournaments/test_projection.py holds that the function installed in Postgres is
this text, and that the twin and the trigger agree on real finished and aborted matches of
every game. To change the rule, change both here and add a migration that installs
``FUNCTION`` as it is then (a copy, not an import: a migration must not change with the code).

The platform writes one final event per stream, last (verify reports any other stream); of
an append holding two ``match_finished`` the trigger takes the first, as the twin does of a
stream.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from games.engine.platform_events import MATCH_ABORTED, MATCH_FINISHED
from games.engine.types import Event

RESULT_TRIGGER = "tournaments_follow_events"
"""The trigger on ``replays_event``, and its function's name."""

FUNCTION = r"""
CREATE OR REPLACE FUNCTION tournaments_follow_events() RETURNS trigger LANGUAGE plpgsql
SET enable_seqscan = off AS $$
DECLARE
    batch record;
BEGIN
    FOR batch IN
        SELECT n.stream_id, max(n.version) AS last_version,
               (array_agg(n.payload) FILTER (WHERE n.event_type = 'match_finished'))[1] AS finished
        FROM new_rows n GROUP BY n.stream_id
    LOOP
        IF batch.finished IS NULL THEN
            UPDATE tournaments_match SET last_version = batch.last_version
            WHERE id = batch.stream_id;
        ELSE
            UPDATE tournaments_match SET
                last_version = batch.last_version,
                status = 'finished',
                outcome = batch.finished -> 'outcome',
                started_at = coalesce(started_at, now()),
                finished_at = now(),
                lease_owner = '',
                lease_expires_at = NULL
            WHERE id = batch.stream_id;
            UPDATE tournaments_seat SET
                rank = (batch.finished #>> ARRAY['outcome', 'ranks', number::text])::int,
                score = (batch.finished #>> ARRAY['outcome', 'scores', number::text])::float8
            WHERE match_id = batch.stream_id;
        END IF;
    END LOOP;
    RETURN NULL;
END $$;
"""
"""The trigger function: every append sets its streams' ``last_version``; an append holding a
``match_finished`` event writes the result (the first such event's outcome) onto the match
row and its seats. Streams that are not matches update nothing."""

TRIGGER = r"""
CREATE TRIGGER tournaments_follow_events AFTER INSERT ON replays_event
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION tournaments_follow_events();
"""
"""One call per append statement (a COPY included), with all its rows."""


@dataclass(frozen=True)
class SeatResult:
    rank: int | None
    score: float | None


@dataclass(frozen=True)
class Projected:
    """What a match's row and seats say once these events are stored."""

    last_version: int
    status: str | None
    """``finished`` or ``aborted`` once the stream has ended, else None: a match still to be
    played is queued, running or waiting, which the lifecycle says, not its events."""
    outcome: Any
    """The result (``match_finished``'s outcome) of a finished match, else None."""
    ended: bool
    """The match is over: its end time is set and it holds no lease."""
    seats: tuple[SeatResult, ...]
    """Each seat's rank and score, in table order (None, None until a result)."""


def project(events: Sequence[Event], seats: int) -> Projected:
    """The twin of ``FUNCTION`` (and of an abort): the row of a match with ``seats`` seats
    whose stream is ``events``, in order."""
    finished = next((ev for ev in events if ev["type"] == MATCH_FINISHED), None)
    if finished is not None:
        outcome = finished["payload"].get("outcome")
        return Projected(
            last_version=len(events),
            status="finished",
            outcome=outcome,
            ended=True,
            seats=tuple(_seat_result(outcome, number) for number in range(seats)),
        )
    aborted = bool(events) and events[-1]["type"] == MATCH_ABORTED
    return Projected(
        last_version=len(events),
        status="aborted" if aborted else None,
        outcome=None,
        ended=aborted,
        seats=tuple(SeatResult(None, None) for _ in range(seats)),
    )


def _seat_result(outcome: Any, number: int) -> SeatResult:
    """``#>>`` and its casts: a missing entry, or a JSON null, is NULL."""
    rank = _entry(outcome, "ranks", number)
    score = _entry(outcome, "scores", number)
    return SeatResult(None if rank is None else int(rank), None if score is None else float(score))


def _entry(outcome: Any, key: str, number: int) -> Any:
    values = outcome.get(key) if isinstance(outcome, dict) else None
    if not isinstance(values, list) or number >= len(values):
        return None
    return values[number]
