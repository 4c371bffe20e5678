"""An archived match reads as it did before compaction, through every door: the viewer, the
API's states, events pages and download, a fork, ``verify`` and ``ratings rebuild``."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client

from games.engine.registry import get
from replays import archive, feed, partitions, snapshots, store
from replays.models import FeedCheckpoint
from tests import own_cache
from tests.factories import MatchFactory, flush, uuid7_at
from tests.support.processes import wait_until
from tests.support.reads import reading_meanwhile
from tests.viewer.conftest import play
from tournaments.play import archiving
from tournaments.play.models import Match
from tournaments.play.runner import RunResult, run_match
from tournaments.rating import rating_feed

# The feed reads only what committed transactions wrote: these tests commit.
pytestmark = pytest.mark.django_db(transaction=True)


def _hot(match: Match) -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM replays_event WHERE stream_id = %s", [match.pk])
        return int(cur.fetchone()[0])


def _consume_past(match: Match) -> None:
    """Consume until the ratings' checkpoint is past the match's events: an open transaction
    anywhere on the server (another test run) holds the feed's fence back, by design."""

    def past() -> bool:
        rating_feed.consume()
        return feed.checkpoint(rating_feed.CONSUMER) >= match_position(match)

    wait_until(past, 180.0, "the ratings' checkpoint to pass the match")


def match_position(match: Match) -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT max(position) FROM replays_event WHERE stream_id = %s", [match.pk])
        return int(cur.fetchone()[0])


def _ok(client: Client, url: str) -> Any:
    r = client.get(url)
    assert r.status_code == 200, (url, r.status_code)
    return r.json() if r["Content-Type"].startswith("application/json") else r.content


def _reads(client: Client, match: Match) -> dict[str, Any]:
    """What the doors answer about the match, with the caches and snapshots left behind."""
    own_cache.clear()
    snapshots.drop(match.pk)
    last = match.last_version
    steps = sorted({1, 2, last // 3, last // 2, last - 1, last})
    out: dict[str, Any] = {}
    for step in steps:
        for view in ("public", "seat0"):
            out[f"state {step} {view}"] = _ok(
                client, f"/api/matches/{match.pk}/state/?step={step}&view={view}"
            )
        _ok(client, f"/matches/{match.pk}/?step={step}")
        out[f"board {step}"] = _ok(client, f"/matches/{match.pk}/board/?step={step}")
    for after, limit in ((0, 50), (last // 2, 7), (last - 3, 50)):
        out[f"events {after}"] = _ok(
            client, f"/api/matches/{match.pk}/events/?after={after}&limit={limit}"
        )
    out["download"] = _ok(client, f"/api/matches/{match.pk}/download/")
    out["log"] = _ok(client, f"/matches/{match.pk}/log/")
    return out


PAST = datetime(2025, 3, 14, 15, 9, 26, tzinfo=UTC)
"""A month before any test runs: its partition is emptied whole once all archived."""


def _past_partition() -> str:
    with connection.cursor() as cur:
        cur.execute("SELECT replays_event_add_partition(%s)", [PAST.date()])
    return partitions.name_of(PAST)


@contextmanager
def _no_truncate_escape() -> Iterator[None]:
    """Without the test database's TRUNCATE escape hatch: a partition is emptied only as in
    production, through the archive's check (migrations/0005)."""
    with connection.cursor() as cur:
        cur.execute("SET backroom.allow_event_truncate = off")
    try:
        yield
    finally:
        with connection.cursor() as cur:
            cur.execute("SET backroom.allow_event_truncate = on")


@pytest.mark.parametrize("month", ["current", "past"])
@pytest.mark.parametrize(("game", "seats"), [("brexit", 4), ("brasilis", 4)])
def test_an_archived_match_reads_as_before_through_every_door(
    client: Client,
    owner: Any,
    game: str,
    seats: int,
    month: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A past month's match keeps its hot rows once archived, and its partition is emptied
    # whole; the current month's loses them row by row.
    past = _past_partition() if month == "past" else None
    match = play(game, seats, owner, match_id=uuid7_at(PAST) if past else None)
    Match.objects.filter(pk=match.pk).update(rated=True)
    other = play(game, seats, None, seed=11)  # stays hot
    Match.objects.filter(pk=other.pk).update(rated=True)
    _consume_past(other)  # the ratings' checkpoint is past both
    before = _reads(client, match)
    events = store.read(match.pk)
    rebuilt = rating_feed.rebuild(write=False)
    assert rebuilt.results == 2 and not rebuilt.differences

    with _no_truncate_escape():
        compacted = archiving.compact(limit=1)  # the oldest: ``match``
    assert compacted.matches == {game: 1} and compacted.events == match.last_version
    assert compacted.dictionaries == [game]
    assert compacted.released == ({past: match.last_version} if past else {})
    assert _hot(match) == 0 and _hot(other) == other.last_version
    assert store.read(match.pk) == events

    assert _reads(client, match) == before
    # The ratings are rebuilt from the archived result as from the hot one.
    rebuilt = rating_feed.rebuild(write=False)
    assert rebuilt.results == 2 and not rebuilt.differences
    call_command("ratings", "check")
    call_command("verify")
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["mismatches"] == 0

    # A fork copies its first events out of the archive and plays on as the original did.
    client.force_login(owner)
    r = client.post(
        f"/api/matches/{match.pk}/fork/",
        {"step": match.last_version // 2, "seats": [{"builtin": "random"}, {}, {}, {}]},
        content_type="application/json",
    )
    assert r.status_code == 201, r.content
    fork = Match.objects.get(pk=r.json()["id"])
    assert run_match(fork.id) == RunResult.FINISHED
    assert [(e.type, e.payload) for e in store.read(fork.id)] == [
        (e.type, e.payload) for e in events
    ]


def test_nothing_is_compacted_before_every_feed_reader_has_passed_it(owner: Any) -> None:
    running = flush(MatchFactory(game="brasilis", seed=4), get("brasilis").rules.setup(4, 4, None))
    match = play("brexit", 4, owner)
    assert archiving.compactable(10) == []  # no reader has a checkpoint yet
    _consume_past(match)  # and past the running one's events, written before
    assert feed.checkpoint(rating_feed.CONSUMER) > match_position(running)
    assert archiving.compactable(10) == [(match.pk, "brexit")]  # the running one stays
    out = io.StringIO()
    call_command("archive", "--limit", "10", stdout=out)
    summary = json.loads(out.getvalue())
    assert summary["matches"] == {"brexit": 1} and summary["events"] == match.last_version
    assert summary["dictionaries_trained"] == ["brexit"]
    # The coming months' partitions exist already (migration 0005, beat); none is past.
    assert summary["partitions_added"] == [] and summary["partitions_released"] == {}
    assert summary["partitions_kept"] == {}
    assert archiving.compactable(10) == []
    assert archive.archived([match.pk, running.pk]) == {match.pk}


@pytest.mark.parametrize("game", ["brexit", "brasilis"])
def test_a_match_read_while_its_partition_is_compacted_reads_the_same_every_time(
    game: str,
) -> None:
    past = _past_partition()
    match = play(game, 4, None, match_id=uuid7_at(PAST))
    FeedCheckpoint.objects.create(consumer="test", position=match_position(match))
    last = match.last_version
    before, page = store.read(match.pk), (last // 3, last // 3 + 99)
    assert len(before) == last
    # Reads from the hot rows, from both once archived, and from the archive alone.
    with (
        reading_meanwhile(match.pk, before, page, at_least=14, join_seconds=120) as reads,
        _no_truncate_escape(),
    ):
        done = archiving.compact(limit=10)
    assert done.matches == {game: 1} and done.released == {past: last}
    assert _hot(match) == 0 and archive.archived([match.pk]) == {match.pk}
    assert len(reads) >= 14 and all(reads)
    assert store.read(match.pk) == before
