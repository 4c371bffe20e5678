"""A played match's stream: what the match loop's flushes write, and how a match finishes.

``DatabaseSink`` is the sink the runner gives the match loop (games/engine/driver.py): at
each durability point it makes the events since the last one durable with the expected
version, so a second writer fails and writes nothing. A leased match writes each flush in
one transaction with a heartbeat, which renews the lease (``LeaseLost`` if another worker has
taken it over), records the sandboxed seats' statistics and keeps the bots' stderr
(``BotLog``). A match that takes no lease (built-in bots) streams its events into an open
COPY (``replays.store.Appender``) as the engine records them, and the flush only ends it.

The last flush ends with ``match_finished``: appending it is the finish, the events' trigger
writes the result onto the match and its seats in the same statement
(tournaments/play/projection.py).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import psycopg
from django.db import connection, transaction

from games.engine.driver import Flush
from games.engine.platform_events import BOT_VERDICT
from games.engine.registry import get
from games.engine.types import Event as EngineEvent
from replays import store
from replays.store import ConcurrencyError, NewEvent
from tournaments.play import faults
from tournaments.play.lifecycle.leases import do_renew, lease_seconds
from tournaments.play.models import BotLog, Match, Seat


class LeaseLost(Exception):
    """Another worker took the match over; this one must stop without writing."""


# A sandboxed match's flush renews its lease and records the seats' statistics in one
# prepared statement (the ORM's version cost more than the COPY of the events); the seat
# updates happen only if the lease was still ours (the join on "renewed").
_HEARTBEAT = """
WITH renewed AS (
    UPDATE tournaments_match
    SET lease_expires_at = now() + make_interval(secs => %(lease)s)
    WHERE id = %(id)s AND status = 'running' AND lease_owner = %(owner)s
    RETURNING id
), seats AS (
    UPDATE tournaments_seat AS s SET
        verdicts = v.verdicts::jsonb, strikes = v.strikes, time_used_ms = v.time_used_ms,
        disqualified = v.disqualified
    FROM renewed, unnest(
        %(seat_ids)s::bigint[], %(verdicts)s::text[], %(strikes)s::int[], %(time_used_ms)s::int[],
        %(disqualified)s::bool[]
    ) AS v(id, verdicts, strikes, time_used_ms, disqualified)
    WHERE s.id = v.id AND s.match_id = renewed.id
)
SELECT count(*) FROM renewed
"""


class DatabaseSink:
    """Makes each flush durable: one transaction with a lease heartbeat, or (no lease) one COPY.

    Without a lease the events stream into an open COPY as the engine records
    them (``stage``), and the flush only ends it: Postgres has received and parsed
    most rows by then, while the engine was busy with the next ones.
    """

    def __init__(
        self,
        match: Match,
        owner: str,
        seats: list[Seat],
        *,
        leased: bool = True,
        renew: bool = False,
    ) -> None:
        """``leased``: each flush is one transaction with the lease's heartbeat. Otherwise the
        events stream into a COPY, and ``renew`` (a built-in match the scheduler claimed)
        extends the lease after each flush, so that a long match is not reaped while it plays."""
        self.match, self.owner, self.seats = match, owner, seats
        self.leased, self.renew = leased, renew
        self.engine_version = get(match.game).rules.engine_version
        self._appender: store.Appender | None = None

    def stage(self, events: Sequence[EngineEvent], after_version: int) -> None:
        if self.leased:
            return  # a leased flush is one transaction with the heartbeat, written at the flush
        if self._appender is None:
            self._appender = store.Appender(self.match.id, after_version)
        try:
            self._appender.add_engine_events(events, self.engine_version)
        except ConcurrencyError as exc:
            self._appender = None
            raise LeaseLost(str(exc)) from exc

    def __call__(self, flush: Flush) -> None:
        if not self.leased:
            self._commit(flush)
            return
        events = self._new_events(flush.events)
        with transaction.atomic():
            self._heartbeat(flush)
            # Any conflict rolls the whole flush back, so no savepoint is needed.
            store.append(self.match.id, events, flush.expected_version, savepoint=False)
            # A bot's errors page reads these rows, not every stream it played in.
            faults.record(self.match, self.seats, flush.events, flush.expected_version)
            if flush.logs:
                verdicts = step_verdicts(flush.events)
                BotLog.objects.bulk_create(
                    BotLog(
                        match=self.match,
                        seat=seat,
                        version=version,
                        verdict=verdicts.get((seat, version), ""),
                        text=text,
                    )
                    for seat, version, text in flush.logs
                )

    def _commit(self, flush: Flush) -> None:
        """End the streamed COPY: autocommitted, it is one transaction with its triggers' result."""
        appender, self._appender = self._appender, None
        if appender is None:  # nothing staged: a sink used without a driver
            appender = store.Appender(self.match.id, flush.expected_version)
            appender.add_engine_events(flush.events, self.engine_version)
        staged = appender.version - appender.expected_version
        if (appender.expected_version, staged) != (flush.expected_version, len(flush.events)):
            appender.abort()
            raise RuntimeError(
                f"flush of {len(flush.events)} events after {flush.expected_version} does not"
                f" match the {staged} staged after {appender.expected_version}"
            )
        try:
            appender.commit()
        except ConcurrencyError as exc:
            raise LeaseLost(str(exc)) from exc
        if self.renew and flush.outcome is None:  # the last flush's trigger ended the lease
            do_renew(self.match.id, self.owner)

    def abort(self) -> None:
        """Drop what was staged and not flushed; a resumed match plays those steps again."""
        appender, self._appender = self._appender, None
        if appender is not None:
            appender.abort()

    def _new_events(self, events: Sequence[EngineEvent]) -> list[NewEvent]:
        version = self.engine_version
        return [NewEvent.from_engine(ev, engine_version=version) for ev in events]

    def _heartbeat(self, flush: Flush) -> None:
        """Renew the lease and record the seats' statistics; LeaseLost if another worker has it."""
        seats = self._changed_seats(flush)
        connection.ensure_connection()
        # A server-side prepared statement: planning this statement cost more than running it.
        with psycopg.Cursor(connection.connection) as cur:
            cur.execute(
                _HEARTBEAT,
                {
                    "id": self.match.id,
                    "owner": self.owner,
                    "lease": lease_seconds(),
                    "seat_ids": [seat.pk for seat in seats],
                    "verdicts": [json.dumps(seat.verdicts) for seat in seats],
                    "strikes": [seat.strikes for seat in seats],
                    "time_used_ms": [seat.time_used_ms for seat in seats],
                    "disqualified": [seat.disqualified for seat in seats],
                },
                prepare=True,
            )
            row = cur.fetchone()
        if not row or row[0] != 1:
            raise LeaseLost(str(self.match.id))

    def _changed_seats(self, flush: Flush) -> list[Seat]:
        """The seats whose bots' statistics this flush records (the sandboxed ones)."""
        changed = []
        for seat in self.seats:
            stats = flush.stats[seat.number]
            if stats.verdicts:
                seat.verdicts, seat.strikes = stats.verdicts, stats.strikes
                seat.time_used_ms = stats.time_used_ms
                seat.disqualified = stats.verdicts.get("disqualified", 0) > 0
                changed.append(seat)
        return changed


def step_verdicts(events: Sequence[EngineEvent]) -> dict[tuple[int, int], str]:
    """The verdict on each (seat, step) decision among ``events``, for the log lines of that step."""
    return {
        (ev["payload"]["seat"], ev["payload"]["step"]): ev["payload"]["verdict"]
        for ev in events
        if ev["type"] == BOT_VERDICT
    }
