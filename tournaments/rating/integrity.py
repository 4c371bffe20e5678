"""Does every stored row agree with the event store? (``manage.py verify``)

The events are the only source of truth; a match's status, outcome and seat
results are copied from them by a trigger, and the ratings are a read model of
them. This folds every stored match from its events and compares: the stream
(versions 1..n, each event once, at most one final event, last), the outcome the
rules compute against the ``match_finished`` event, the match row and its seats
against what the trigger's Python twin makes of the events
(tournaments/play/projection.py: status, outcome, end, ``last_version``, each
seat's rank and score), and the ratings against a rebuild that writes nothing. It
reads only, so it can run against a live database or a restored backup
(docs/reliability.md).

On a live database, matches finish while it reads: a match row read before its last events
were appended, and those events read after, would disagree although nothing is wrong. So
everything is read in one read-only REPEATABLE READ transaction: one snapshot of the whole
database, taken at its first read.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, transaction

from games.engine.match import replay
from games.engine.platform_events import MATCH_ABORTED, MATCH_FINISHED, game_events
from games.engine.registry import get
from replays import store
from tournaments.play.models import Match, Seat
from tournaments.play.projection import Projected, project
from tournaments.rating import rating_feed


@dataclass
class Report:
    matches: int = 0
    events: int = 0
    mismatches: list[str] = field(default_factory=list)


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values (a float stored as 3.0 and an int 3 are the same score)."""
    return bool(json.loads(json.dumps(a)) == json.loads(json.dumps(b)))


def check_match(match: Match, seats: list[Seat]) -> tuple[int, list[str]]:
    """How many events the match has, and what in its rows disagrees with them."""
    events = store.read(match.id)
    problems: list[str] = []
    versions = [ev.version for ev in events]
    if versions != list(range(1, len(events) + 1)):
        problems.append("its stream's versions are not 1..n")
    if len({ev.event_id for ev in events}) != len(events):
        problems.append("an event is stored twice")
    ends = [ev for ev in events if ev.type in (MATCH_FINISHED, MATCH_ABORTED)]
    if len(ends) > 1 or (ends and ends[0] is not events[-1]):
        problems.append(f"{len(ends)} final events, or one that is not the last")
    engine_events = [ev.as_engine_event() for ev in events]
    problems += _against_projection(match, seats, project(engine_events, len(seats)))
    if ends and ends[0].type == MATCH_FINISHED:
        rules = get(match.game).rules
        computed = rules.outcome(replay(rules, game_events(engine_events)))
        recorded = ends[0].payload.get("outcome")
        if computed is None:
            problems.append("its events do not reach the end of the game")
        elif not _same(computed, recorded):
            problems.append(f"its match_finished outcome {recorded} is not the game's {computed}")
    return len(events), [f"match {match.id}: {p}" for p in problems]


def _against_projection(match: Match, seats: list[Seat], wanted: Projected) -> list[str]:
    """What in the rows differs from what the events make of them (projection.project, the
    twin of the trigger that writes them)."""
    problems = []
    if match.last_version != wanted.last_version:
        problems.append(f"last_version {match.last_version}, but {wanted.last_version} events")
    if wanted.status is not None and match.status != wanted.status:
        problems.append(f"status {match.status}, but its stream ends {wanted.status}")
    if wanted.status is None and match.status in (Match.Status.FINISHED, Match.Status.ABORTED):
        # A queued match cancelled before any event has its abort written in its stream too;
        # only a finished one must end with its result.
        problems.append(f"status {match.status}, but its stream has no final event")
    if wanted.ended and match.finished_at is None:
        problems.append(f"no end time, but its stream ends {wanted.status}")
    if not _same(match.outcome, wanted.outcome):
        problems.append(f"stored outcome {match.outcome}, event outcome {wanted.outcome}")
    for seat, result in zip(seats, wanted.seats, strict=True):
        if not _same((seat.rank, seat.score), (result.rank, result.score)):
            problems.append(
                f"seat {seat.number}: rank {seat.rank} score {seat.score},"
                f" the result says {result.rank} and {result.score}"
            )
    return problems


def _matches(chunk: int = 500) -> Iterator[tuple[Match, list[Seat]]]:
    """Every match with its seats, a chunk of matches at a time."""
    last = None
    while True:
        page = Match.objects.order_by("id")
        if last is not None:
            page = page.filter(id__gt=last)
        batch = list(page[:chunk])
        if not batch:
            return
        seats: dict[Any, list[Seat]] = {m.id: [] for m in batch}
        for seat in Seat.objects.filter(match__in=batch).order_by("match_id", "number"):
            seats[seat.match_id].append(seat)
        for match in batch:
            yield match, seats[match.id]
        last = batch[-1].id


def verify() -> Report:
    """Every match against its events, then the ratings against a rebuild that writes nothing,
    all as of one snapshot."""
    if connection.in_atomic_block:
        raise RuntimeError("verify reads in a snapshot of its own: call it outside a transaction")
    with transaction.atomic():
        with connection.cursor() as cur:  # the first statement, so the snapshot is the next read's
            cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        return _verify()


def _verify() -> Report:
    report = Report()
    for match, seats in _matches():
        count, problems = check_match(match, seats)
        report.matches += 1
        report.events += count
        report.mismatches.extend(problems)
    rebuilt = rating_feed.rebuild(write=False)
    report.mismatches.extend(f"rating {line}" for line in rebuilt.differences)
    return report
