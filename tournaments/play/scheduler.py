"""The next match a free worker plays: the most urgent kind first, then fairly between accounts.

Workers do not play the match their message names, first come first served: that let one
account's thirty slow challenges delay another user's by 272 s on two workers. A message
(``play_match``, ``play_person_match``, ``validate_bot_version``) only wakes a worker, which
then takes from Postgres, in one statement (``FOR UPDATE SKIP LOCKED``, so two workers never
take the same row), the queued match that comes first in this order:

1. its class (``Match.priority``): a person's seat, then an upload's smoke match, then
   everything else (challenges, forks, ladders, seasons). An origin's person's match or smoke
   match keeps its class only while none of the origin's of that class is being played or
   stopped for a person or ended within ``FAIR_HEAD_START_GAP_SECONDS``, and while the origin's
   people's and smoke matches took less than ``FAIR_HEAD_START_SECONDS_PER_HOUR`` of the workers
   in the last hour (else it takes its turn among the rest): a script answering its "person's"
   seats at once, or a stream of slow uploads, would otherwise have each next one go first
   whenever a worker freed. And the match (a challenge, a fork) of a user none of whose
   matches was played since it was made, that has seen as many matches start after it as there
   are busy workers, takes the first class itself:
   however many addresses take their head starts in turn, none delays another user by more
   than the matches already running. A worker never takes a match of a later class than the queues
   it reads carry (``note_queues``), so a worker reading only the ``people`` queue plays
   people's matches alone (the reserve that keeps a person's wait short while ladders play),
   while one that reads ``matches`` too takes whatever comes first, whichever message woke it;
2. within the class, whose turn it is. The "account" of a match is whoever it is for: the user
   who made it (a challenge, a fork, a smoke match, a person's match), else its ladder or
   season (each its own account); the "origin" is the address the user signed up from
   (``AccountOrigin``), so several accounts made at one address count as one. First the
   accounts within their hourly budget of worker time (allowance.py), then the fewest matches
   running now (by origin, then account), then the fewest worker seconds in the last hour (by
   origin, then account), then the oldest match. The account with least running and least
   recent worker time goes next: no account can keep another waiting for more than the
   matches already running.

A match whose lease expired (its worker died) is taken like a queued one. What the match was
played for is charged to its account and origin when the worker lets it go (worker_time.py).

The message still names a match (the hint). A worker that takes another one sends the hint's
message again if the hint is still queued, so every queued match keeps a message waiting for
it, and if the hint is held under a live lease by another worker (which may have died: this can
be the redelivered message of its match), for when that lease expires; one that takes nothing
and finds the hint so held retries after a lease. So a dead worker's match is taken again
about a second after its lease expires, not only at the reaper's next round. Claiming, leases, late
acknowledgement, the reaper and the attempts limit are the runner's, unchanged; the claim
itself (which rows may be claimed, what claiming sets) is the lifecycle's (``CLAIMABLE``,
``CLAIM_PICKED`` in tournaments/play/lifecycle/leases.py), which this statement ends with.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import psycopg
from django.conf import settings
from django.db import connection
from django.utils import timezone

from games.sandbox.readiness import isolation_status
from tournaments.play import dispatch, lifecycle, runner, validation, worker_time
from tournaments.play.lifecycle import CLAIM_PICKED, CLAIMABLE, STILL_CLAIMABLE
from tournaments.play.models import Match
from tournaments.play.outages import is_database_outage

log = logging.getLogger(__name__)

# Whose work a match is: the user who made it, else its ladder or season ("" for neither).
ACCOUNT = """CASE
    WHEN m.created_by_id IS NOT NULL THEN 'u:' || m.created_by_id
    WHEN m.ladder_id IS NOT NULL THEN 'ladder:' || m.ladder_id
    WHEN m.season_id IS NOT NULL THEN 'season:' || m.season_id
    ELSE '' END"""
PERSON, VALIDATION, PLAY = (int(p) for p in Match.Priority)
TOP = 64
"""Matches tried in order at most: more than workers claim at once, so one of them is free."""

_PICK = f"""
WITH claimable AS MATERIALIZED (
    -- Every claimable match (not only each account's oldest: while another worker locks that
    -- one to claim it, the account's next must still be found), with whose it is.
    SELECT m.id, m.priority || '|' || {ACCOUNT} AS turn, {ACCOUNT} AS account,
        m.priority, m.created_at, m.created_by_id
    FROM tournaments_match m
    WHERE {CLAIMABLE} AND m.priority <= %(upto)s
      AND (%(sandbox)s OR NOT EXISTS (
          SELECT 1 FROM tournaments_seat s WHERE s.match_id = m.id AND s.bot_version_id IS NOT NULL
      ))
), accounts AS MATERIALIZED (
    -- One row per class and account waiting: the order is decided among these, not the rows.
    SELECT a.turn, a.priority, a.account, a.oldest, a.user_id,
        COALESCE('a:' || host(o.address), a.account) AS origin
    FROM (
        SELECT turn, min(priority) AS priority, min(account) AS account,
            min(created_at) AS oldest, min(created_by_id) AS user_id
        FROM claimable GROUP BY turn
    ) a
    LEFT JOIN tournaments_accountorigin o ON o.user_id = a.user_id
), running AS (
    SELECT {ACCOUNT} AS account, COALESCE('a:' || host(o.address), {ACCOUNT}) AS origin,
        count(*) AS n, count(*) FILTER (WHERE m.priority = {PERSON}) AS people,
        count(*) FILTER (WHERE m.priority = {VALIDATION}) AS smokes
    FROM tournaments_match m
    LEFT JOIN tournaments_accountorigin o ON o.user_id = m.created_by_id
    WHERE m.status = 'running' AND m.lease_expires_at >= now()
    GROUP BY 1, 2
), busy AS (
    -- The workers busy now (live leases' owners): how many matches may start ahead of a
    -- user's match after it was made before it takes the first class itself.
    SELECT greatest(1, count(DISTINCT m.lease_owner)) AS n FROM tournaments_match m
    WHERE m.status = 'running' AND m.lease_expires_at >= now()
), paused AS (
    -- The origins one of whose urgent matches (a person's, a smoke match) stopped for a person
    -- or ended within the gap, by class: their next one of that class takes its turn with the
    -- rest until the gap has passed. The worker that has just let one go picks at once, so
    -- without the gap the origin's next went first every time: a script answering its seats
    -- at once, or a stream of slow uploads, held the workers (a person thinks longer).
    SELECT DISTINCT COALESCE('a:' || host(o.address), {ACCOUNT}) AS origin, m.priority
    FROM tournaments_match m
    LEFT JOIN tournaments_accountorigin o ON o.user_id = m.created_by_id
    WHERE m.priority < {PLAY} AND (
        m.suspended_at > now() - make_interval(secs => %(gap)s)
        OR m.finished_at > now() - make_interval(secs => %(gap)s)
    )
), used AS (
    SELECT key, sum(seconds) AS seconds FROM tournaments_workertime
    WHERE minute > now() - interval '1 hour'
      AND key IN (
          SELECT account FROM accounts UNION SELECT origin FROM accounts
          UNION SELECT 'urgent:' || origin FROM accounts
      )
    GROUP BY key
), turns AS MATERIALIZED (
    SELECT array_agg(turn ORDER BY n) AS turns FROM (
        SELECT a.turn, row_number() OVER (ORDER BY
            -- An account over its hour's budget waits behind everyone within theirs, whatever
            -- the class: a person's seat gives no way around it.
            (a.account LIKE 'u:%%' AND coalesce(ua.seconds, 0) >= %(budget)s)
                OR (a.origin LIKE 'a:%%' AND coalesce(uo.seconds, 0) >= %(origin_budget)s),
            -- A person's match, or an upload's smoke match, goes ahead of the rest only while
            -- none of its origin's of that class is being played or ended within the gap
            -- (``paused``), and while the origin's urgent work of the last hour is within its
            -- head start's budget: one person plays one game at a time, and a script's many
            -- "people", or many slow uploads, of one account or of several of one address,
            -- take turns with everyone's work.
            CASE WHEN a.priority < {PLAY} AND (
                EXISTS (
                    SELECT 1 FROM running r WHERE r.origin = a.origin
                      AND (CASE WHEN a.priority = {PERSON} THEN r.people ELSE r.smokes END) > 0
                )
                OR EXISTS (SELECT 1 FROM paused p WHERE p.origin = a.origin AND p.priority = a.priority)
                OR coalesce(uu.seconds, 0) >= %(head_start)s
            ) THEN {PLAY}
            -- And the match of a user none of whose matches was played since it was made,
            -- that has seen as many matches start after it as there are busy workers, takes
            -- the first class itself: head starts given to many addresses in turn (four
            -- addresses' slow uploads held another user's challenge 601 s behind 87 smoke
            -- matches) delay no one by more than the matches running. (A flood's queued
            -- matches, their account being served, never jump ahead so.)
            WHEN a.priority = {PLAY} AND a.account LIKE 'u:%%'
                AND NOT EXISTS (
                    SELECT 1 FROM tournaments_match s
                    WHERE s.created_by_id = a.user_id AND s.started_at IS NOT NULL
                      AND (s.finished_at IS NULL OR s.finished_at > a.oldest)
                ) AND (
                SELECT count(*) FROM (
                    SELECT 1 FROM tournaments_match s WHERE s.started_at > a.oldest LIMIT {TOP}
                ) overtook
            ) >= (SELECT n FROM busy) THEN {PERSON}
            ELSE a.priority END,
            (SELECT coalesce(sum(r.n), 0) FROM running r WHERE r.origin = a.origin),
            (SELECT coalesce(sum(r.n), 0) FROM running r WHERE r.account = a.account),
            coalesce(uo.seconds, 0),
            coalesce(ua.seconds, 0),
            a.oldest
        ) AS n
        FROM accounts a
        LEFT JOIN used ua ON ua.key = a.account
        LEFT JOIN used uo ON uo.key = a.origin
        LEFT JOIN used uu ON uu.key = 'urgent:' || a.origin
    ) ranked
), top AS MATERIALIZED (
    -- The first matches in that order: each account's, oldest first.
    SELECT array_agg(id ORDER BY place, created_at) AS ids FROM (
        SELECT c.id, c.created_at, array_position(t.turns, c.turn) AS place
        FROM claimable c, turns t
        ORDER BY place, c.created_at
        LIMIT {TOP}
    ) first
), picked AS (
    SELECT m.id FROM tournaments_match m
    WHERE m.id = ANY((SELECT ids FROM top)::uuid[])
      AND {STILL_CLAIMABLE}  -- checked again on the row as it is when locked
    ORDER BY array_position((SELECT ids FROM top), m.id)
    LIMIT 1
    FOR UPDATE SKIP LOCKED
)
{CLAIM_PICKED}
RETURNING m.id, m.priority, m.validation_of_id, m.attempts, {ACCOUNT},
    (SELECT 'a:' || host(o.address) FROM tournaments_accountorigin o
     WHERE o.user_id = m.created_by_id)
"""  # noqa: S608 (the fragments are constants of this module and the lifecycle; values are parameters)


@dataclass(frozen=True)
class Picked:
    """A match this worker has claimed (status running, its lease), and whose it is."""

    id: uuid.UUID
    priority: int
    validation_of: int | None
    attempts: int
    """Workers that have started it, this one included."""
    account: str
    origin: str

    @property
    def keys(self) -> tuple[str, ...]:
        """What its worker time is charged to: its account and origin, and for a person's or a
        smoke match the origin's urgent work too (the head start's budget)."""
        urgent = f"urgent:{self.origin}" if self.priority < PLAY and self.origin else ""
        return tuple(dict.fromkeys(k for k in (self.account, self.origin, urgent) if k))


@dataclass(frozen=True)
class Served:
    """What a wake-up did: the match it played (None: nothing to play) and how that went."""

    match_id: uuid.UUID | None
    result: str
    hint_busy: bool = False
    """Nothing was played and the hint is held by another worker's live lease."""


LEASE_EXPIRY_MARGIN_SECONDS = 1.0
"""How long after a live lease's expiry a worker is woken for its match (the clocks of the
worker, the broker's timer and Postgres need not agree to the millisecond)."""

WIDEST: int | None = None
"""The latest class this worker's queues carry (set when the worker starts: tasks.py), None
when unknown (a test calling serve directly)."""


def note_queues(names: Iterable[str]) -> None:
    """Remember the latest class the queues this worker reads carry: a worker that also reads
    the ``matches`` queue takes any class whatever message woke it, so that a person's or a
    smoke match that lost its head start takes its turn behind what comes first (the worker
    woken by its own message would otherwise play it anyway, and a stream of uploads chained
    its smoke matches); a worker kept for people or validations still takes nothing later."""
    global WIDEST
    classes = {
        settings.PEOPLE_QUEUE: PERSON,
        settings.VALIDATION_QUEUE: VALIDATION,
        settings.MATCH_QUEUE: PLAY,
    }
    read = [classes[name] for name in names if name in classes]
    WIDEST = max(read) if read else None


def widest(upto: int) -> int:
    """The class a message of class ``upto`` may take up to on this worker."""
    return upto if WIDEST is None else max(upto, WIDEST)


def budget_seconds() -> float:
    return float(settings.FAIR_WORKER_SECONDS_PER_HOUR)


def origin_factor() -> float:
    return float(settings.FAIR_ADDRESS_FACTOR)


def pick(*, upto: int, owner: str, sandbox: bool, refund_of: str | None = None) -> Picked | None:
    """Claim for ``owner`` the match that comes first (module docstring), or None.

    ``refund_of``: the worker whose attempt a database outage ended (runner.AttemptInterrupted);
    claiming that match again counts no attempt (an outage costs a match at most one).
    """
    params: dict[str, Any] = {
        "upto": upto,
        "sandbox": sandbox,
        "owner": owner,
        "refund_of": refund_of,  # None compares with no owner: every claim then counts
        "lease": lifecycle.lease_seconds(),
        "budget": budget_seconds(),
        "origin_budget": budget_seconds() * origin_factor(),
        "gap": float(settings.FAIR_HEAD_START_GAP_SECONDS),
        "head_start": float(settings.FAIR_HEAD_START_SECONDS_PER_HOUR),
    }
    connection.ensure_connection()
    # One statement, so one transaction of its own: the row is locked, claimed and committed
    # at once. Prepared on the server: planning it cost as much as running it.
    with psycopg.Cursor(connection.connection) as cur:
        cur.execute(_PICK, params, prepare=True)
        row = cur.fetchone()
    if row is None:
        return None
    match_id, priority, validation_of, attempts, account, address = row
    return Picked(match_id, priority, validation_of, attempts, account, address or account)


def _pass_on(hint: uuid.UUID, picked: Picked | None) -> bool:
    """Keep a message waiting for the hint when this wake-up did not take it; True if the hint
    is held by another worker's live lease (and nothing was picked: the caller retries)."""
    if picked is not None and picked.id == hint:
        return False
    fields = ("status", "priority", "validation_of_id", "lease_expires_at")
    row = Match.objects.filter(id=hint).values_list(*fields).first()
    if row is None:
        return False
    status, priority, validation_of, expires = row
    running = status == Match.Status.RUNNING
    now = timezone.now()
    held = running and expires is not None and expires >= now
    if picked is not None and (status == Match.Status.QUEUED or (running and not held)):
        dispatch.play_match(str(hint), priority, validation_of)
    elif picked is not None and held:
        # Its worker may have died (this may be its redelivered message, the match's last):
        # wake a worker once the lease can have expired, as a wake-up that took nothing does
        # (it retries after a lease: tasks.py), rather than drop the message and leave the
        # match to the reaper, up to its period later. A live worker renews the lease
        # meanwhile, and that wake-up sends the message on again until the match is over.
        wait = (expires - now).total_seconds() + LEASE_EXPIRY_MARGIN_SECONDS
        dispatch.play_match(str(hint), priority, validation_of, countdown=wait)
    # Nothing picked and the hint running: its lease was live when the pick looked and may have
    # expired since (a dead worker's match): look again after a lease rather than drop the
    # message, which was the match's last (a killed worker's match was never resumed).
    return picked is None and running


def serve(
    *,
    upto: int,
    hint: uuid.UUID | None = None,
    owner: str | None = None,
    refund_of: str | None = None,
) -> Served:
    """Claim the next match (up to class ``upto``) and play it, or a smoke match's whole
    validation; charge its worker time. The Celery tasks call this for every wake-up.

    A database outage propagates; once a match is claimed, as runner.AttemptInterrupted, whose
    owner the task's retry passes back as ``refund_of``.
    """
    owner = owner or runner.worker_name()
    isolated, _ = isolation_status()
    picked = pick(upto=widest(upto), owner=owner, sandbox=isolated, refund_of=refund_of)
    if hint is not None and _pass_on(hint, picked):
        return Served(None, "busy", hint_busy=True)
    if picked is None:
        return Served(None, "nothing to play")
    began = time.monotonic()
    try:
        if picked.validation_of is not None:
            result = validation.validate(picked.validation_of, owner=owner, smoke=picked.id)
        else:
            played = runner.run_match(picked.id, owner, claimed=True, attempts=picked.attempts)
            result = played.value
    except Exception as exc:
        if is_database_outage(exc) and not isinstance(exc, runner.AttemptInterrupted):
            raise runner.AttemptInterrupted(owner) from exc  # a smoke match's, say
        raise
    finally:
        _charge(picked, time.monotonic() - began)
    return Served(picked.id, result)


def _charge(picked: Picked, seconds: float) -> None:
    try:
        worker_time.charge(picked.keys, seconds)
    except Exception as exc:  # never hide what the match itself raised (a database outage)
        log.warning("match %s: %.1f s of worker time not charged: %s", picked.id, seconds, exc)
