"""The events table's partitions: a month of match ids each, made ahead of time, and emptied
whole only through the archive, once every row of theirs is archived; never dropped while
attached, nor detached while holding an event no archive covers."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest
from django.db import DatabaseError, connection, transaction

from config import queues
from replays import archive, partitions, store
from replays.store import NewEvent
from tests.factories import counted_events, uuid7_at
from tournaments import tasks

pytestmark = pytest.mark.django_db

PAST = datetime(2025, 3, 14, 15, 9, 26, tzinfo=UTC)
"""A month before any test runs: no new match is made in it."""


def _month_partition(moment: datetime) -> str:
    with connection.cursor() as cur:
        cur.execute("SELECT replays_event_add_partition(%s)", [moment.date()])
    return partitions.name_of(moment)


def _stream(stream: uuid.UUID, n: int = 40) -> uuid.UUID:
    events = [
        NewEvent(type="match_finished" if i == n - 1 else "counted", payload={"n": i, "t": "é\\"})
        for i in range(n)
    ]
    store.append(stream, events, expected_version=0)
    return stream


def _where(stream: uuid.UUID) -> set[str]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT DISTINCT tableoid::regclass::text FROM replays_event WHERE stream_id = %s",
            [stream],
        )
        return {row[0] for row in cur.fetchall()}


def _rows(partition: str) -> int:
    with connection.cursor() as cur:
        cur.execute(f"SELECT count(*) FROM {partition}")  # noqa: S608 (a partition's name)
        return int(cur.fetchone()[0])


def _session() -> psycopg.Connection[tuple[Any, ...]]:
    """A session of its own on the test database (autocommit), beside the test's transaction."""
    settings = connection.settings_dict
    return psycopg.connect(
        host=settings["HOST"],
        port=settings["PORT"],
        user=settings["USER"],
        dbname=settings["NAME"],
        autocommit=True,
    )


def _refused(sql: str, *, compacting: bool, match: str = "append-only") -> None:
    with pytest.raises(Exception, match=match), transaction.atomic(), connection.cursor() as cur:
        cur.execute("SET LOCAL backroom.allow_event_truncate = 'off'")
        if compacting:
            cur.execute("SET LOCAL backroom.compacting = on")
        cur.execute(sql)


def test_a_streams_events_sit_in_the_partition_of_the_month_its_id_was_made() -> None:
    now = datetime.now(UTC)
    past = _month_partition(PAST)
    made_now, made_then, not_v7 = _stream(uuid7_at(now)), _stream(uuid7_at(PAST)), uuid.uuid4()
    _stream(not_v7)
    assert _where(made_now) == {partitions.name_of(now)}
    assert _where(made_then) == {past} == {"replays_event_p202503"}
    assert _where(not_v7) == {partitions.DEFAULT}
    assert len(store.read(made_then)) == 40


def test_the_coming_months_partitions_are_made_ahead_once() -> None:
    now = datetime.now(UTC)
    months = [
        datetime(now.year + (now.month - 1 + k) // 12, (now.month - 1 + k) % 12 + 1, 1, tzinfo=UTC)
        for k in range(6)
    ]
    made = partitions.add_partitions(3)
    assert set(made) <= {partitions.name_of(m) for m in months[:4]}
    assert {partitions.name_of(m) for m in months[:4]} <= set(partitions.partitions())
    assert partitions.add_partitions(3) == []
    # A month whose streams arrived before its partition keeps them in the default partition,
    # readable there; the months after it are still made.
    late = _stream(uuid7_at(months[4].replace(day=2)))
    assert _where(late) == {partitions.DEFAULT}
    assert partitions.add_partitions(5) == [partitions.name_of(months[5])]
    assert _where(late) == {partitions.DEFAULT} and len(store.read(late)) == 40


def test_beat_makes_a_missing_coming_month_every_hour() -> None:
    *_, coming, default = partitions.partitions()
    assert default == partitions.DEFAULT and coming > partitions.name_of(datetime.now(UTC))
    with connection.cursor() as cur:  # empty: no match is made in that month yet
        cur.execute(f"ALTER TABLE replays_event DETACH PARTITION {coming}")
        cur.execute(f"DROP TABLE {coming}")
    entry = queues.BEAT_SCHEDULE["add-event-partitions"]
    assert entry == {"task": queues.ADD_EVENT_PARTITIONS, "schedule": 3600.0}
    assert tasks.add_event_partitions() == [coming]
    assert tasks.add_event_partitions() == []


def test_a_partition_is_emptied_only_by_the_archive_and_only_once_all_of_it_is_archived() -> None:
    past = _month_partition(PAST)
    done, undone = _stream(uuid7_at(PAST)), _stream(uuid7_at(PAST), 25)
    using = archive.train("test", [archive.hot_rows(done)])
    archive.compact_many([done], using, keep_hot=True)
    assert _rows(past) == 65 and archive.archived([done, undone]) == {done}
    _refused(f"TRUNCATE {past}", compacting=False)
    _refused(f"TRUNCATE {past}", compacting=True, match="which no archive covers")
    _refused(f"DELETE FROM {past} WHERE stream_id = '{undone}'", compacting=True)  # noqa: S608 (a partition's name and a uuid)
    _refused(f"UPDATE {past} SET version = version", compacting=False)  # noqa: S608 (a partition's name)
    _refused("TRUNCATE replays_event", compacting=True)
    with pytest.raises(archive.ArchiveError, match=f"stream {undone} has no archive"):
        archive.release_partition(past)
    assert not archive.fully_archived(past)

    archive.compact_many([undone], using, keep_hot=True)
    store.append(done, counted_events(1), expected_version=40)  # after its archive: not in it
    _refused(f"TRUNCATE {past}", compacting=True, match="which no archive covers")
    with pytest.raises(archive.ArchiveError, match=f"stream {done}'s archive differs"):
        archive.release_partition(past)
    assert _rows(past) == 66
    with pytest.raises(archive.ArchiveError, match="not a partition"):
        archive.release_partition("replays_archive")


def test_a_partition_all_archived_is_emptied_whole_and_reads_as_before() -> None:
    past = _month_partition(PAST)
    streams = [_stream(uuid7_at(PAST), n) for n in (40, 7, 90)]
    elsewhere = _stream(uuid7_at(datetime.now(UTC)))
    before = {s: store.read(s) for s in [*streams, elsewhere]}
    using = archive.train("test", [archive.hot_rows(s) for s in streams])
    assert archive.compact_many(streams, using, keep_hot=True) == 137
    # Archived with the hot rows still there: each event is read once, from either.
    assert {s: store.read(s) for s in before} == before
    assert store.read(streams[2], from_version=30, to_version=39) == before[streams[2]][29:39]
    assert archive.fully_archived(past)
    with connection.cursor() as cur:
        cur.execute("SET LOCAL backroom.allow_event_truncate = 'off'")
    assert archive.release_partition(past) == 137
    assert _rows(past) == 0 and not archive.fully_archived(past)
    assert {s: store.read(s) for s in before} == before
    assert store.read(streams[2], from_version=30, to_version=39) == before[streams[2]][29:39]
    assert [store.current_version(s) for s in streams] == [40, 7, 90]
    assert _where(elsewhere) == {partitions.name_of(datetime.now(UTC))}
    # The stream goes on after its archive, in its partition again.
    assert store.append(streams[1], counted_events(2), expected_version=7) == 9
    assert [e.version for e in store.read(streams[1])] == list(range(1, 10))


def test_a_partition_is_not_emptied_while_a_reader_holds_a_snapshot_older_than_its_archives() -> (
    None
):
    past = _month_partition(PAST)
    stream = _stream(uuid7_at(PAST))
    before = store.read(stream)
    archive.compact_many([stream], archive.train("test", [archive.hot_rows(stream)]), keep_hot=True)
    with connection.cursor() as cur:
        cur.execute("SET LOCAL backroom.allow_event_truncate = 'off'")
    with _session() as reader:
        # Its snapshot is taken before the archive commits (this test's transaction never does).
        reader.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        reader.execute("SELECT 1")
        with pytest.raises(archive.ArchiveError, match="1 sessions still read from before"):
            archive.release_partition(past, wait_seconds=0.3)
        assert _rows(past) == 40
        reader.execute("COMMIT")
    assert archive.release_partition(past, wait_seconds=0.3) == 40
    assert _rows(past) == 0 and store.read(stream) == before


def _detach_concurrently(partition: str) -> None:
    """From a session of its own: it cannot run inside a transaction."""
    with _session() as other:
        other.execute("SET lock_timeout = '10s'")
        other.execute(f"ALTER TABLE replays_event DETACH PARTITION {partition} CONCURRENTLY")


def test_a_partition_holding_unarchived_events_is_neither_dropped_nor_detached() -> None:
    # Its first half commits before any check could refuse it: Postgres itself refuses it while
    # the table has a default partition, and that one is never detached (below).
    current = partitions.name_of(datetime.now(UTC))
    with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState, match="default partition"):
        _detach_concurrently(current)
    assert current in partitions.partitions()
    past = _month_partition(PAST)
    stream = _stream(uuid7_at(PAST))
    before = store.read(stream)
    detach = f"ALTER TABLE replays_event DETACH PARTITION {past}"
    _refused(f"DROP TABLE {past}", compacting=True, match=f"DROP of its partition public.{past}")
    _refused("DROP TABLE replays_event CASCADE", compacting=True, match=f"public.{past}")
    _refused(detach, compacting=True, match=f"holds {stream}#1, which no archive covers")
    _refused(f"TRUNCATE {past}", compacting=True, match="which no archive covers")
    _refused("TRUNCATE replays_event", compacting=True, match="TRUNCATE is not allowed")
    _refused(
        f"ALTER TABLE replays_event DETACH PARTITION {partitions.DEFAULT}",
        compacting=False,
        match="keeps its default partition",
    )
    assert _rows(past) == 40 and store.read(stream) == before

    # Archived, verified and emptied by the archive: then it may go, and its events stay.
    archive.compact_many([stream], archive.train("test", [archive.hot_rows(stream)]), keep_hot=True)
    with connection.cursor() as cur:
        cur.execute("SET LOCAL backroom.allow_event_truncate = 'off'")
    assert archive.release_partition(past) == 40
    _refused(f"DROP TABLE {past}", compacting=False, match="Detach it first")
    with connection.cursor() as cur:
        cur.execute(detach)
        cur.execute(f"DROP TABLE {past}")
    assert past not in partitions.partitions() and store.read(stream) == before


def test_a_partition_archived_but_not_emptied_may_be_detached() -> None:
    past = _month_partition(PAST)
    stream = _stream(uuid7_at(PAST))
    using = archive.train("test", [archive.hot_rows(stream)])
    archive.compact_many([stream], using, keep_hot=True)
    late = _stream(uuid7_at(PAST), 3)
    detach = f"ALTER TABLE replays_event DETACH PARTITION {past}"
    _refused(detach, compacting=False, match=f"holds {late}#1, which no archive covers")
    archive.compact_many([late], using, keep_hot=True)
    with connection.cursor() as cur:
        cur.execute(detach)
    assert past not in partitions.partitions() and _rows(past) == 43
    assert [len(store.read(s)) for s in (stream, late)] == [40, 3]


def _insert_into(partition: str, stream: uuid.UUID, versions: range) -> None:
    """Rows written straight into ``partition`` in one statement (as anyone with the database
    could), without positions."""
    rows = ", ".join(
        ["(gen_random_uuid(), %s, %s, 'counted', 1, jsonb_build_object('n', %s), '{}')"]
        * len(versions)
    )
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute(
            f"INSERT INTO {partition} (event_id, stream_id, version, event_type, schema_version,"  # noqa: S608 (a partition's name)
            f" payload, metadata) VALUES {rows}",
            [value for v in versions for value in (stream, v, v - 1)],
        )


def _statement_triggers(table: str) -> set[str]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT tgname FROM pg_trigger WHERE tgrelid = %s::regclass AND NOT tgisinternal"
            " AND tgtype & 1 = 0 AND tgtype & 4 <> 0",
            [table],
        )
        return {row[0] for row in cur.fetchall()}


def test_every_partition_has_the_tables_insert_triggers_made_ahead_or_not() -> None:
    """A statement trigger fires only for statements on its own table: each partition carries
    the table's, those made with the table, ahead of time or for a past month."""
    _month_partition(PAST)
    partitions.add_partitions(4)
    wanted = _statement_triggers("replays_event")
    assert {"replays_event_contiguous", "tournaments_follow_events"} <= wanted
    for partition in partitions.partitions():
        assert _statement_triggers(partition) == wanted, partition


def test_a_write_straight_into_a_partition_is_checked_as_one_through_the_table() -> None:
    now = datetime.now(UTC)
    partition, stream = partitions.name_of(now), uuid7_at(now)
    with pytest.raises(DatabaseError, match="would have a gap before version 2"):
        _insert_into(partition, stream, range(2, 4))
    _insert_into(partition, stream, range(1, 3))  # numbered by the table's sequence
    with pytest.raises(DatabaseError, match="would have a gap before version 4"):
        _insert_into(partition, stream, range(4, 5))
    assert [(e.version, e.payload) for e in store.read(stream)] == [(1, {"n": 0}), (2, {"n": 1})]
    assert store.append(stream, counted_events(1, 2), expected_version=2) == 3
    positions = [e.position for e in store.read(stream)]
    assert positions == sorted(positions) and len(set(positions)) == 3


def test_a_statement_through_the_table_fires_each_trigger_once() -> None:
    """Partitions' copies fire for statements naming the partition only: a COPY through the
    table runs the table's trigger once, not its partition's copy too."""
    with connection.cursor() as cur:
        cur.execute("CREATE TEMP TABLE fired (tg text, n bigint)")
        cur.execute(
            "CREATE FUNCTION pg_temp.count_fired() RETURNS trigger LANGUAGE plpgsql AS $$"
            " BEGIN INSERT INTO fired SELECT TG_TABLE_NAME, count(*) FROM new_rows; RETURN NULL;"
            " END $$"
        )
        cur.execute(
            "CREATE TRIGGER count_fired AFTER INSERT ON replays_event REFERENCING NEW TABLE AS"
            " new_rows FOR EACH STATEMENT EXECUTE FUNCTION pg_temp.count_fired()"
        )
        cur.execute(
            "SELECT replays_event_adopt(i.inhrelid::regclass) FROM pg_inherits i"
            " WHERE i.inhparent = 'replays_event'::regclass"
        )
    now = datetime.now(UTC)
    store.append(uuid7_at(now), counted_events(5), expected_version=0)
    _insert_into(partitions.name_of(now), uuid7_at(now), range(1, 4))
    with connection.cursor() as cur:
        cur.execute("SELECT tg, n FROM fired ORDER BY tg")
        assert cur.fetchall() == [("replays_event", 5), (partitions.name_of(now), 3)]


def test_a_trigger_the_partitions_could_not_copy_whole_is_refused() -> None:
    """Copies are made from a trigger's name, function and transition table: one with
    arguments would lose them, so adopting it fails instead (and adds no partition)."""
    with connection.cursor() as cur:
        cur.execute(
            "CREATE FUNCTION pg_temp.with_argument() RETURNS trigger LANGUAGE plpgsql AS $$"
            " BEGIN RETURN NULL; END $$"
        )
        cur.execute(
            "CREATE TRIGGER with_argument AFTER INSERT ON replays_event"
            " FOR EACH STATEMENT EXECUTE FUNCTION pg_temp.with_argument('x')"
        )
    with pytest.raises(DatabaseError, match="cannot copy trigger with_argument"):
        _month_partition(PAST)
