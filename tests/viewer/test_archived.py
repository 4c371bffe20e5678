"""An archived match reads as it did before compaction, through every door: the viewer, the
API's states, events pages and download, a fork, ``verify`` and ``ratings rebuild``."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client

from replays import archive, feed, snapshots, store
from tests import own_cache
from tests.support.processes import wait_until
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


@pytest.mark.parametrize(("game", "seats"), [("brexit", 4), ("brasilis", 4)])
def test_an_archived_match_reads_as_before_through_every_door(
    client: Client, owner: Any, game: str, seats: int, capsys: pytest.CaptureFixture[str]
) -> None:
    match = play(game, seats, owner)
    Match.objects.filter(pk=match.pk).update(rated=True)
    other = play(game, seats, None, seed=11)  # stays hot
    Match.objects.filter(pk=other.pk).update(rated=True)
    _consume_past(other)  # the ratings' checkpoint is past both
    before = _reads(client, match)
    events = store.read(match.pk)
    rebuilt = rating_feed.rebuild(write=False)
    assert rebuilt.results == 2 and not rebuilt.differences

    compacted = archiving.compact(limit=1)  # the oldest: ``match``
    assert compacted.matches == {game: 1} and compacted.events == match.last_version
    assert compacted.dictionaries == [game]
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
    match = play("brexit", 4, owner)
    running = play("brasilis", 4, None)
    Match.objects.filter(pk=running.pk).update(status=Match.Status.RUNNING)
    assert archiving.compactable(10) == []  # no reader has a checkpoint yet
    _consume_past(running)
    assert archiving.compactable(10) == [(match.pk, "brexit")]  # the running one stays
    out = io.StringIO()
    call_command("archive", "--limit", "10", stdout=out)
    summary = json.loads(out.getvalue())
    assert summary["matches"] == {"brexit": 1} and summary["events"] == match.last_version
    assert summary["dictionaries_trained"] == ["brexit"]
    assert archiving.compactable(10) == []
    assert archive.archived([match.pk, running.pk]) == {match.pk}
