"""The archive: compaction keeps every event readable, byte for byte, and nothing else leaves."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection, transaction

from replays import archive, store
from replays.store import ConcurrencyError, NewEvent
from tests.factories import counted_events
from tests.support.reads import reading_meanwhile

pytestmark = pytest.mark.django_db


def _stream(n: int = 30) -> uuid.UUID:
    stream = uuid.uuid4()
    events = [
        NewEvent(
            type="match_finished" if i == n - 1 else "counted" if i % 3 else "odd",
            payload={"n": i, "text": 'a\\b\n"c" é ✓', "f": 1.5, "nested": {"z": [1, None]}},
            metadata={"actor": i % 4, "visible_to": None},
            schema_version=1 + i % 2,
        )
        for i in range(n)
    ]
    store.append(stream, events[:10], expected_version=0)
    store.append(stream, events[10:], expected_version=10)
    return stream


def _dictionary() -> archive.Dictionary:
    return archive.train("test", [archive.hot_rows(_stream(200))])


def _hot_count(stream: uuid.UUID) -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM replays_event WHERE stream_id = %s", [stream])
        return int(cur.fetchone()[0])


def test_the_codec_gives_back_exactly_the_stored_rows() -> None:
    stream = _stream()
    rows = archive.hot_rows(stream)
    assert archive.decode(archive.encode(rows)) == rows


def test_a_compacted_stream_reads_exactly_as_before_from_its_archive() -> None:
    using = _dictionary()
    stream = _stream()
    before = store.read(stream)
    texts = [(r[5], r[6]) for r in archive.hot_rows(stream)]
    assert archive.compact(stream, using) == 30
    assert _hot_count(stream) == 0
    assert store.read(stream) == before
    assert [(r[5], r[6]) for r in archive.rows(stream, 1, None) or []] == texts
    assert store.read(stream, from_version=7, to_version=9) == before[6:9]
    assert store.read(stream, from_version=29) == before[28:]
    assert store.read(stream, from_version=31) == []
    assert store.current_version(stream) == 30


def test_appending_after_an_archived_stream_continues_it_and_a_stale_writer_conflicts() -> None:
    stream = _stream()
    archive.compact(stream, _dictionary())
    with pytest.raises(ConcurrencyError):
        store.append(stream, counted_events(1), expected_version=0)
    with pytest.raises(ConcurrencyError):
        store.append(stream, counted_events(1), expected_version=12)
    with pytest.raises(ConcurrencyError, match="the stream is at 30"):
        store.append(stream, counted_events(1), expected_version=31)
    assert store.append(stream, counted_events(2, start=100), expected_version=30) == 32
    events = store.read(stream)
    assert [e.version for e in events] == list(range(1, 33))
    assert [e.payload["n"] for e in events[-3:]] == [29, 100, 101]
    assert [e.version for e in store.read(stream, from_version=29, to_version=31)] == [29, 30, 31]
    assert store.current_version(stream) == 32


def test_hot_rows_can_be_deleted_only_by_the_compaction_and_only_once_archived() -> None:
    archived, other = _stream(), _stream()
    archive.compact(archived, _dictionary())
    store.append(archived, counted_events(1), expected_version=30)
    for sql, params in [
        # the compaction's setting, but the stream has no archive
        ("DELETE FROM replays_event WHERE stream_id = %s", [other]),
        # an event appended after the archive was written is not in it
        ("DELETE FROM replays_event WHERE stream_id = %s", [archived]),
    ]:
        with (
            pytest.raises(Exception, match="append-only"),
            transaction.atomic(),
            connection.cursor() as cur,
        ):
            cur.execute("SET LOCAL backroom.compacting = on")
            cur.execute(sql, params)
    using = _dictionary()
    with (
        pytest.raises(Exception, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cur,
    ):
        # An archive covering the stream, but a session that is not the compaction's.
        cur.execute(
            "INSERT INTO replays_archive (stream_id, dictionary_id, last_version, first_position,"
            " last_position, document) SELECT stream_id, %s, max(version), min(position),"
            " max(position), '' FROM replays_event WHERE stream_id = %s GROUP BY stream_id",
            [using.id, other],
        )
        cur.execute("DELETE FROM replays_event WHERE stream_id = %s", [other])
    assert _hot_count(other) == 30
    assert _hot_count(archived) == 1


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE replays_archive SET last_version = 1",
        "DELETE FROM replays_archive",
        "TRUNCATE replays_archived_event",
        "DELETE FROM replays_archived_event",
        "UPDATE replays_archive_dictionary SET game = 'other'",
        "DELETE FROM replays_archive_dictionary",
    ],
)
def test_archives_are_never_changed_or_deleted(sql: str) -> None:
    stream = _stream()
    archive.compact(stream, _dictionary())
    with (
        pytest.raises(Exception, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cur,
    ):
        cur.execute("SET LOCAL backroom.allow_event_truncate = 'off'")
        cur.execute(sql)
    assert len(store.read(stream)) == 30


def test_a_stream_is_compacted_once() -> None:
    stream = _stream()
    using = _dictionary()
    archive.compact(stream, using)
    with pytest.raises(archive.ArchiveError, match="no hot events"):
        archive.compact(stream, using)


def test_a_document_that_does_not_decode_to_the_rows_removes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stream = _stream()
    using = _dictionary()
    real = archive.encode

    def lossy(rows: list[archive.Row]) -> bytes:
        first = rows[0]
        return real([(*first[:5], first[5].replace("1.5", "1.50"), *first[6:]), *rows[1:]])

    monkeypatch.setattr(archive, "encode", lossy)
    with pytest.raises(archive.ArchiveError, match="does not decode"):
        archive.compact(stream, using)
    assert _hot_count(stream) == 30
    assert archive.rows(stream, 1, None) is None


@pytest.mark.django_db(transaction=True)
def test_a_stream_read_while_it_is_compacted_reads_the_same_every_time() -> None:
    using = _dictionary()
    stream = _stream(300)
    # Reads before, during and after the compaction's transaction commits.
    with reading_meanwhile(stream, store.read(stream), (100, 149), at_least=5) as reads:
        archive.compact(stream, using)
        assert _hot_count(stream) == 0
    assert reads and all(reads)


def test_streams_compacted_together_each_read_as_before_or_none_is_compacted() -> None:
    using = _dictionary()
    streams = [_stream(n) for n in (5, 40, 77)]
    before = {s: store.read(s) for s in streams}
    assert archive.compact_many(streams, using) == 122
    assert {s: store.read(s) for s in streams} == before
    assert all(_hot_count(s) == 0 for s in streams)
    fresh = _stream(12)
    with pytest.raises(archive.ArchiveError, match="no hot events"):
        archive.compact_many([fresh, streams[0]], using)
    assert _hot_count(fresh) == 12 and archive.rows(fresh, 1, None) is None


def test_a_retry_of_a_batch_archived_since_is_a_conflict_and_writes_nothing() -> None:
    stream = uuid.uuid4()
    batch = counted_events(3)
    store.append(stream, batch, expected_version=0)
    archive.compact(stream, _dictionary())
    with pytest.raises(ConcurrencyError, match="another writer"):
        store.append(stream, batch, expected_version=0)
    assert [e.event_id for e in store.read(stream)] == [e.event_id for e in batch]
    assert _hot_count(stream) == 0
