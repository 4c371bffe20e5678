"""``manage.py bench archive``: what the archive costs on disk and what reading it costs.

Per game, in one run: real matches played by the runner (built-in random bots, 4 seats),
their events' bytes on disk in the hot table, then the same matches compacted by
``manage.py archive``'s own code (tournaments/play/archiving.py) and their bytes in the
archive, and the time of the two reads the viewer and the API make of a match (a step: the
state folded from the nearest snapshot, replays.snapshots.state_at_step; an events page:
replays.store.read of a page of versions) on the same matches at the same versions, hot
and archived. The caches in front of them (tournaments/play/read_cache.py) are left out:
they hide both paths alike.

Sizes are Postgres's own (pg_total_relation_size: heap, TOAST, indexes), so they count
pages, not only bytes: run it with enough matches for the pages to fill.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from django.db import connection

from games.engine.registry import get
from replays import snapshots, store
from replays.models import FeedCheckpoint
from tournaments.bench.match import _new_match
from tournaments.play import archiving, runner

PAGE = 100
"""Events per page read (the API's default page: tournaments/site/api)."""

READS = 200
"""Reads of each kind timed per game and path."""

_ARCHIVE_TABLES = ("replays_archive", "replays_archived_event", "replays_archive_dictionary")


def _bytes(tables: tuple[str, ...]) -> int:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT sum(pg_total_relation_size(t)) FROM unnest(%s::text[]) t", [list(tables)]
        )
        return int(cur.fetchone()[0])


def _events() -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM replays_event")
        return int(cur.fetchone()[0])


def _reads(game: str, plan: list[tuple[Any, int, int]]) -> tuple[float, float]:
    """The median seconds of a step and of an events page, over the planned reads."""
    rules = get(game).rules
    steps, pages = [], []
    for match_id, step, after in plan:
        start = time.perf_counter()
        snapshots.state_at_step(rules, match_id, step)
        steps.append(time.perf_counter() - start)
        start = time.perf_counter()
        store.read(match_id, from_version=after + 1, to_version=after + PAGE)
        pages.append(time.perf_counter() - start)
    return statistics.median(steps), statistics.median(pages)


def _one_game(game: str, matches: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)  # noqa: S311 (which reads to time, not secrets)
    hot_before, events_before = _bytes(("replays_event",)), _events()
    archived_before = _bytes(_ARCHIVE_TABLES)
    played = []
    start = time.perf_counter()
    for _ in range(matches):
        match = _new_match(game, rng.getrandbits(62))
        if runner.run_match(match.id) is not runner.RunResult.FINISHED:
            raise RuntimeError(f"bench match {match.id} did not finish")
        match.refresh_from_db()
        played.append(match)
    play_s = time.perf_counter() - start
    if not connection.in_atomic_block:  # a test's --in-place run is inside one
        with connection.cursor() as cur:
            cur.execute("VACUUM ANALYZE replays_event")
    events = _events() - events_before
    hot_bytes = _bytes(("replays_event",)) - hot_before
    plan = []
    for _ in range(READS):
        match = rng.choice(played)
        plan.append(
            (match.id, rng.randint(1, match.last_version), rng.randint(0, match.last_version - 1))
        )
    _reads(game, plan)  # leaves the snapshots a first viewer leaves, on both paths alike
    hot_step, hot_page = _reads(game, plan)

    # Every reader of the feed has passed them (the bench has no ratings consumer running).
    with connection.cursor() as cur:
        cur.execute("SELECT coalesce(max(position), 0) FROM replays_event")
        (last,) = cur.fetchone()
    FeedCheckpoint.objects.update_or_create(consumer="bench archive", defaults={"position": last})
    start = time.perf_counter()
    compacted = archiving.compact(limit=matches)
    compact_s = time.perf_counter() - start
    if compacted.matches != {game: matches} or _events() != events_before:
        raise RuntimeError(f"bench archive: compacted {compacted.matches} of {matches} matches")
    archived_bytes = _bytes(_ARCHIVE_TABLES) - archived_before
    with connection.cursor() as cur:
        cur.execute(
            "SELECT sum(octet_length(document)) FROM replays_archive WHERE stream_id = ANY(%s)",
            [[m.id for m in played]],
        )
        (documents,) = cur.fetchone()
    _reads(game, plan)
    archived_step, archived_page = _reads(game, plan)
    return {
        "matches": matches,
        "events": events,
        "events_per_match": round(events / matches, 1),
        "played_in_s": round(play_s, 1),
        "hot_bytes_per_event": round(hot_bytes / events, 1),
        "archive_bytes_per_event": round(archived_bytes / events, 1),
        "document_bytes_per_event": round(int(documents) / events, 1),
        "compacted_events_per_s": round(events / compact_s),
        "step_ms": {"hot": round(hot_step * 1e3, 3), "archived": round(archived_step * 1e3, 3)},
        "page_ms": {"hot": round(hot_page * 1e3, 3), "archived": round(archived_page * 1e3, 3)},
        "archived_read_ratio": round(max(archived_step / hot_step, archived_page / hot_page), 2),
    }


def bench_archive(game: str, matches: int, seed: int = 1) -> dict[str, Any]:
    """The figures of one game. Its sizes are what its matches added to the tables: run each
    game in a database of its own (``manage.py bench archive`` does) for the hot table's."""
    return {
        "bench": "archive",
        "game": game,
        "seats": 4,
        "bots": "builtin:random in every seat",
        "archive_bytes_per_event": "archive tables' total relation size / events archived",
        "archived_read_ratio": "worse of step and events page: archived median / hot median",
        "target_archive_bytes_per_event": 40,
        "target_archived_read_ratio": 2,
        **_one_game(game, matches, seed),
    }
