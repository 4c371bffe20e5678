"""``manage.py bench archive``: what the archive costs on disk and what reading it costs.

Per game, in one run: real matches played by the runner (built-in random bots, 4 seats),
their events' bytes on disk in the hot table, then the same matches compacted by
``manage.py archive``'s own code (tournaments/play/archiving.py) and their bytes in the
archive. Between the two halves of the compaction, the two reads the viewer and the API make
of a match (a step: the state folded from the nearest snapshot,
replays.snapshots.state_at_step; an events page: replays.store.read of a page of versions)
are timed side by side, a hot match's and an archived match's at the same place in the
match, one after the other. The caches in front of them (tournaments/play/read_cache.py) are left out:
they hide both paths alike.

Sizes are Postgres's own (pg_total_relation_size: heap, TOAST, indexes; of every partition
of the events table), so they count pages, not only bytes: run it with enough matches for the pages to fill.
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
            # A partitioned table has no storage of its own: its partitions have it.
            "SELECT sum(pg_total_relation_size(coalesce(p.relid, t::regclass)))"
            " FROM unnest(%s::text[]) t LEFT JOIN pg_partition_tree(t::regclass) p ON true",
            [list(tables)],
        )
        return int(cur.fetchone()[0])


def _events() -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM replays_event")
        return int(cur.fetchone()[0])


Read = tuple[Any, int, int]
"""A match, a step of it, and the version an events page starts after."""


def _read(rules: Any, read: Read) -> tuple[float, float]:
    match_id, step, after = read
    start = time.perf_counter()
    snapshots.state_at_step(rules, match_id, step)
    middle = time.perf_counter()
    store.read(match_id, from_version=after + 1, to_version=after + PAGE)
    return middle - start, time.perf_counter() - middle


def _reads(game: str, plan: list[tuple[Read, Read]]) -> dict[str, dict[str, float]]:
    """Median ms of a step and of a page, hot and archived, the two reads of each pair one
    after the other: a slow spell of the shared machine hits both sides."""
    rules = get(game).rules
    times: dict[str, list[float]] = {"hot step": [], "hot page": [], "step": [], "page": []}
    for hot, archived in plan:
        step, page = _read(rules, hot)
        times["hot step"].append(step)
        times["hot page"].append(page)
        step, page = _read(rules, archived)
        times["step"].append(step)
        times["page"].append(page)
    ms = {k: statistics.median(v) * 1e3 for k, v in times.items()}
    return {
        "step_ms": {"hot": round(ms["hot step"], 3), "archived": round(ms["step"], 3)},
        "page_ms": {"hot": round(ms["hot page"], 3), "archived": round(ms["page"], 3)},
    }


def _at(rng: random.Random, match: Any, where: float) -> Read:
    """The read at the same place (a fraction of the match) of any match."""
    last = match.last_version
    return match.id, max(1, round(where * last)), min(last - 1, round(rng.random() * last))


def _one_game(game: str, matches: int, seed: int) -> dict[str, Any]:
    if matches < 2:
        raise ValueError("bench archive needs two matches at least: one of them stays hot")
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

    # Every reader of the feed has passed them (the bench has no ratings consumer running).
    with connection.cursor() as cur:
        cur.execute("SELECT coalesce(max(position), 0) FROM replays_event")
        (last,) = cur.fetchone()
    FeedCheckpoint.objects.update_or_create(consumer="bench archive", defaults={"position": last})
    # The older half first (matches are compacted oldest first): the reads compare its
    # matches, archived, with the newer half's, hot, side by side.
    half = matches // 2
    start = time.perf_counter()
    first = archiving.compact(limit=half)
    compact_s = time.perf_counter() - start
    if not connection.in_atomic_block:
        # As after any compaction run: the hot rows it removed are dead until a vacuum, and
        # an index scan next to them would step over them until then.
        with connection.cursor() as cur:
            cur.execute("VACUUM ANALYZE replays_event")
    plan = []
    for _ in range(READS):
        where = rng.random()
        archived_match, hot_match = rng.choice(played[:half]), rng.choice(played[half:])
        plan.append((_at(rng, hot_match, where), _at(rng, archived_match, where)))
    _reads(game, plan)  # leaves the snapshots a first viewer leaves, on both sides alike
    timed = _reads(game, plan)

    start = time.perf_counter()
    rest = archiving.compact(limit=matches)
    compact_s += time.perf_counter() - start
    compacted = first.matches.get(game, 0) + rest.matches.get(game, 0)
    if compacted != matches or _events() != events_before:
        raise RuntimeError(f"bench archive: compacted {compacted} of {matches} matches")
    archived_bytes = _bytes(_ARCHIVE_TABLES) - archived_before
    with connection.cursor() as cur:
        cur.execute(
            "SELECT sum(octet_length(document)) FROM replays_archive WHERE stream_id = ANY(%s)",
            [[m.id for m in played]],
        )
        (documents,) = cur.fetchone()
    step, page = timed["step_ms"], timed["page_ms"]
    return {
        "matches": matches,
        "events": events,
        "events_per_match": round(events / matches, 1),
        "played_in_s": round(play_s, 1),
        "hot_bytes_per_event": round(hot_bytes / events, 1),
        "archive_bytes_per_event": round(archived_bytes / events, 1),
        "document_bytes_per_event": round(int(documents) / events, 1),
        "compacted_events_per_s": round(events / compact_s),
        **timed,
        "archived_read_ratio": round(
            max(step["archived"] / step["hot"], page["archived"] / page["hot"]), 2
        ),
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
        "archived_read_ratio": (
            "worse of step and events page: median over reads of archived matches / median"
            " over the same reads of hot ones, alternating"
        ),
        "target_archive_bytes_per_event": 40,
        "target_archived_read_ratio": 2,
        **_one_game(game, matches, seed),
    }
