"""The result projection (tournaments/play/projection.py): the SQL installed in Postgres is the
module's, and its Python twin (what ``manage.py verify`` checks rows against) agrees with it on
real matches of every game, and on any outcome appended in any batches."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from django.db import connection
from hypothesis import HealthCheck, given
from hypothesis import settings as examples
from hypothesis import strategies as st

from games.engine.platform_events import MATCH_FINISHED
from games.engine.registry import GAMES
from replays import partitions, store
from replays.store import NewEvent
from tests.factories import MatchFactory, SeatFactory, claim
from tournaments.play import lifecycle, runner
from tournaments.play.models import Match
from tournaments.play.projection import (
    FUNCTION,
    RESULT_TRIGGER,
    TRIGGER,
    Projected,
    SeatResult,
    project,
)

pytestmark = pytest.mark.django_db

AS_WRITTEN = "tournaments_follow_events_as_written"


def definition(query: str, name: str) -> str:
    """Postgres's own text of a function or trigger (normalised: spacing, schema, quoting)."""
    with connection.cursor() as cur:
        cur.execute(query, [name])
        row = cur.fetchone()
    assert row is not None, name
    return str(row[0])


FUNCTION_DEF = "SELECT pg_get_functiondef(%s::regproc)"
# The table's own trigger: each partition has a copy of it (replays' migration 0007).
TRIGGER_DEF = (
    "SELECT pg_get_triggerdef(oid) FROM pg_trigger"
    " WHERE tgname = %s AND tgrelid = 'replays_event'::regclass"
)


def test_the_function_installed_is_the_module_s_sql() -> None:
    """The module's text, installed under another name in this (rolled back) transaction, is
    what the migrations installed: a change here without its migration fails."""
    with connection.cursor() as cur:
        cur.execute(FUNCTION.replace(f"FUNCTION {RESULT_TRIGGER}()", f"FUNCTION {AS_WRITTEN}()"))
    written = definition(FUNCTION_DEF, AS_WRITTEN).replace(AS_WRITTEN, RESULT_TRIGGER)
    assert definition(FUNCTION_DEF, RESULT_TRIGGER) == written


def test_the_trigger_installed_is_the_module_s() -> None:
    renamed = (f"TRIGGER {RESULT_TRIGGER} ", f"TRIGGER {AS_WRITTEN} ")
    with connection.cursor() as cur:
        cur.execute(TRIGGER.replace(*renamed))
    written = definition(TRIGGER_DEF, AS_WRITTEN).replace(renamed[1], renamed[0])
    assert definition(TRIGGER_DEF, RESULT_TRIGGER) == written


def as_stored(match: Match) -> Projected:
    """What the rows say, in the twin's terms."""
    match.refresh_from_db()
    over = match.status in (Match.Status.FINISHED, Match.Status.ABORTED)
    return Projected(
        last_version=match.last_version,
        status=match.status if over else None,
        outcome=match.outcome,
        ended=match.finished_at is not None
        and match.lease_owner == ""
        and match.lease_expires_at is None,
        seats=tuple(SeatResult(s.rank, s.score) for s in match.seats.order_by("number")),
    )


def twin(match: Match) -> Projected:
    events = [ev.as_engine_event() for ev in store.read(match.id)]
    return project(events, match.seats.count())


def builtin_match(game: str, seed: int) -> Match:
    info = GAMES[game]
    match = MatchFactory(game=game, seed=seed)
    for number in range(info.min_seats):
        SeatFactory(match=match, number=number, bot_version=None, builtin="random")
    return match


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_twin_and_the_trigger_agree_on_matches_of_every_game(game: str, settings: Any) -> None:
    """Every game the registry knows (the tests' High Card too): a finished match, one a
    platform limit aborted with its events, one cancelled before it began, one never played."""
    finished = builtin_match(game, seed=11)
    assert runner.run_match(finished.id) is runner.RunResult.FINISHED
    queued, cancelled = builtin_match(game, seed=12), builtin_match(game, seed=13)
    assert lifecycle.do_cancel(Match.objects.filter(id=cancelled.id), "a test") == 1
    settings.MATCH_MAX_STEPS = 2
    stopped = builtin_match(game, seed=14)
    assert runner.run_match(stopped.id) is runner.RunResult.ABORTED

    for match in (finished, stopped, cancelled, queued):
        assert as_stored(match) == twin(match), match.id
    assert [twin(m).status for m in (finished, stopped, cancelled, queued)] == [
        "finished",
        "aborted",
        "aborted",
        None,
    ]
    assert twin(stopped).last_version > 1  # it kept what was played


RANK = st.one_of(st.none(), st.integers(1, 5))  # the seat row holds a positive rank
SCORE = st.one_of(st.none(), st.integers(-1000, 1000), st.floats(-1e6, 1e6, allow_nan=False))


def leased_match(seats: int) -> Match:
    """A running match its worker holds, as the final append finds it."""
    match = MatchFactory()
    for number in range(seats):
        SeatFactory(match=match, number=number, bot_version=None, builtin="random")
    return claim(match, "w")


@st.composite
def streams(draw: st.DrawFn) -> tuple[int, list[NewEvent], list[int]]:
    """Seats, a stream that may hold one ``match_finished`` anywhere (any outcome: entries
    missing, null, more than seats), and where its appends are cut."""
    seats = draw(st.integers(1, 4))
    events = [NewEvent(type="played", payload={"n": n}) for n in range(draw(st.integers(0, 6)))]
    if draw(st.booleans()):
        outcome: dict[str, Any] = {}
        if draw(st.booleans()):
            outcome["ranks"] = draw(st.lists(RANK, max_size=seats + 1))
        if draw(st.booleans()):
            outcome["scores"] = draw(st.lists(SCORE, max_size=seats + 1))
        final = NewEvent(type=MATCH_FINISHED, payload={"outcome": outcome, "seed": 1})
        events.insert(draw(st.integers(0, len(events))), final)
    cuts = sorted(c for c in draw(st.sets(st.integers(1, 6), max_size=3)) if c < len(events))
    return seats, events, cuts


@examples(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(streams())
def test_the_twin_and_the_trigger_agree_on_any_result_in_any_batches(
    stream: tuple[int, list[NewEvent], list[int]],
) -> None:
    seats, events, cuts = stream
    match = leased_match(seats)
    for start, end in zip([0, *cuts], [*cuts, len(events)], strict=True):
        if start < end:
            # Straight to the store: the trigger is under test, on streams (a final event
            # anywhere, any outcome) that no worker's flush writes.
            store.append(match.id, events[start:end], start)
    assert as_stored(match) == twin(match)


def test_a_result_written_straight_into_its_partition_is_projected_too() -> None:
    """Not through the store, nor through the events table: a COPY naming the match's partition
    (replays' migration 0007 gives each partition the table's statement triggers)."""
    match = leased_match(3)
    outcome = {"ranks": [2, 1, 3], "scores": [5, 9, 1]}
    events = [
        NewEvent(type="played", payload={"n": 0}),
        NewEvent(type=MATCH_FINISHED, payload={"outcome": outcome, "seed": 1}),
    ]
    stream = store.copy_stream(match.id)
    rows = b"".join(store.copy_row(stream, v, ev) for v, ev in enumerate(events, start=1))
    raw = connection.connection
    with (
        raw.cursor() as cur,
        cur.copy(
            f"COPY {partitions.name_of(datetime.now(UTC))} (event_id, stream_id, version, event_type,"
            " schema_version, payload, metadata) FROM STDIN"
        ) as copy,
    ):
        copy.write(rows)
    assert as_stored(match) == twin(match)
    assert (match.status, match.outcome, match.last_version) == ("finished", outcome, 2)
