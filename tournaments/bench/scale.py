"""``manage.py bench scale``: matches per minute with one worker process and with two, in one run.

Two real Celery workers (solo pool: one process each) are started on queues of this run only:
worker A consumes queues ``one`` and ``two``, worker B only ``two``. A batch sent to ``one`` is
played by one process; the same batch sent to ``two`` is shared by two. The rounds alternate
which side goes first, so that a slow spell of a shared machine hurts both sides alike, and the
ratio is the median over rounds (the ratio of the totals is printed too).

A match goes the whole production way: a message on the broker, a worker's ``play_match`` (the
runner persisting its events to Postgres, late acknowledgement), the ratings task it sends. The
clock runs from the first message sent to the last match seen finished in the database.
"""

from __future__ import annotations

import os
import re
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from django.db import connection

from games.engine.registry import get
from tournaments.bench.children import Child, database_url, delete_queues
from tournaments.play.models import Match, Seat

ROOT = Path(__file__).resolve().parents[1]
READY = " ready."
PLAYED = re.compile(r"Task tournaments\.play_match\[([0-9a-f-]+)\] succeeded")
TOOK = re.compile(r"Task tournaments\.play_match\[[0-9a-f-]+\] succeeded in ([0-9.]+)s")


class BenchWorker(Child):
    """A ``celery worker`` (solo pool: one process), all of its output kept for its task ids."""

    def __init__(self, name: str, queues: list[str], env: dict[str, str]) -> None:
        argv = [
            str(Path(sys.executable).parent / "celery"),
            *["-A", "config", "worker", "--pool", "solo", "--queues", ",".join(queues)],
            *["--loglevel", "INFO", "--hostname", f"{name}@%h"],
            *["--without-mingle", "--without-gossip"],
        ]
        super().__init__(name, argv, env, keep=None)

    def wait_ready(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while not self.said(READY):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise self.failure("bench scale: a worker did not start")
            time.sleep(0.1)

    def played(self) -> set[str]:
        return set(PLAYED.findall(self.text()))

    def task_seconds(self) -> list[float]:
        """How long each play_match took inside the worker (Celery's own log line)."""
        return [float(s) for s in TOOK.findall(self.text())]


def worker_env(queues: dict[str, str]) -> dict[str, str]:
    """This process's settings and database, and this run's queues (base and test settings)."""
    return {
        **os.environ,
        "DATABASE_URL": database_url(),
        "PYTHONUNBUFFERED": "1",  # log lines as they happen: the shares are read from them
        "DJANGO_SETTINGS_MODULE": os.environ.get("DJANGO_SETTINGS_MODULE", "config.settings.local"),
        "CELERY_DEFAULT_QUEUE": queues["celery"],
        "MATCH_QUEUE": queues["matches"],
        "VALIDATION_QUEUE": queues["validation"],
        "PEOPLE_QUEUE": queues["people"],
        "RATINGS_QUEUE": queues["ratings"],
        "TEST_CELERY_QUEUE": queues["celery"],
        "TEST_MATCH_QUEUE": queues["matches"],
        "TEST_VALIDATION_QUEUE": queues["validation"],
        "TEST_PEOPLE_QUEUE": queues["people"],
        "TEST_RATINGS_QUEUE": queues["ratings"],
    }


def _new_matches(game: str, seats: int, bots: str, count: int) -> list[Match]:
    matches = [
        Match.objects.create(game=game, seed=int.from_bytes(os.urandom(6), "big"), options={})
        for _ in range(count)
    ]
    Seat.objects.bulk_create(
        Seat(match=m, number=n, builtin=bots) for m in matches for n in range(seats)
    )
    return matches


def _play(matches: list[Match], queue: str, timeout: float) -> tuple[float, dict[str, uuid.UUID]]:
    """Send the batch to ``queue`` and wait for every match to finish; the seconds it took."""
    from tournaments.tasks import play_match

    ids = [m.id for m in matches]
    start = time.perf_counter()
    sent = {play_match.apply_async((str(i),), queue=queue).id: i for i in ids}
    deadline = start + timeout
    done = Match.objects.filter(id__in=ids, status__in=[Match.Status.FINISHED])
    while done.count() < len(ids):
        if time.perf_counter() > deadline:
            raise RuntimeError(f"bench scale: {len(ids) - done.count()} matches unfinished")
        time.sleep(0.02)
    return time.perf_counter() - start, sent


def _share(workers: list[BenchWorker], sent: set[str]) -> int:
    """How many of ``sent`` the second worker played, once both logs account for all of them."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if len((workers[0].played() | workers[1].played()) & sent) == len(sent):
            break
        time.sleep(0.1)
    return len(workers[1].played() & sent)


def _event_storage() -> tuple[int, int]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*), (SELECT sum(pg_total_relation_size(relid))"
            " FROM pg_partition_tree('replays_event')) FROM replays_event"
        )
        events, size = cursor.fetchone()
    return int(events), int(size)


def bench_scale(
    matches: int = 12,
    rounds: int = 3,
    game: str = "brasilis",
    seats: int = 4,
    bots: str = "quick",
    timeout: float = 600.0,
) -> dict[str, Any]:
    """The figures: matches per minute with one process and with two, and their ratio."""
    get(game)  # an unknown game is refused before anything starts
    tag = uuid.uuid4().hex[:8]
    # `one` and `two` are declared plainly, as a queue named only by the sender is; the others
    # are the workers' own (their settings may give them arguments, as the test settings do).
    names = ("one", "two", "celery", "matches", "validation", "people", "ratings")
    queues = {q: f"bench-scale-{tag}-{q}" for q in names}
    # The ratings task each finished match sends waits on its own queue, consumed by nobody here
    # and deleted after: ratings have workers of their own (docs/scaling.md), and a rating done
    # by A while B plays would count against the one-process side only.
    shared = [queues["celery"], queues["validation"], queues["people"]]
    env = worker_env(queues)
    workers = [
        BenchWorker(f"scale-{tag}-a", [queues["one"], queues["two"], *shared], env),
        # B takes nothing but matches sent to `two`: while `one` is timed, A works alone.
        BenchWorker(f"scale-{tag}-b", [queues["two"]], env),
    ]
    seconds = {1: 0.0, 2: 0.0}
    ratios: list[float] = []
    shares: list[int] = []
    try:
        for worker in workers:
            worker.wait_ready(120)
        # Warm up both (imports, connections, caches) before anything is timed.
        _play(_new_matches(game, seats, bots, 4), queues["two"], timeout)
        for r in range(rounds):
            times = {}
            for processes in (1, 2) if r % 2 == 0 else (2, 1):
                batch = _new_matches(game, seats, bots, matches)
                queue = queues["one"] if processes == 1 else queues["two"]
                times[processes], sent = _play(batch, queue, timeout)
                seconds[processes] += times[processes]
                if processes == 2:
                    shares.append(_share(workers, set(sent)))
            ratios.append(times[1] / times[2])
    finally:
        for worker in workers:
            worker.stop()
        delete_queues(list(queues.values()))
    total = matches * rounds
    inside = sorted(t for w in workers for t in w.task_seconds())
    events, table_bytes = _event_storage()
    played = Match.objects.filter(status=Match.Status.FINISHED).count()
    per_minute = {p: total / seconds[p] * 60 for p in (1, 2)}
    return {
        "bench": "scale",
        "game": game,
        "seats": seats,
        "bots": f"builtin:{bots} in every seat",
        "matches_per_round": matches,
        "rounds": rounds,
        "cpu_count": os.cpu_count(),
        "workers": "celery worker --pool solo, one process each; prefetch 1, late acks",
        "ratings": "queued on their own queue, not consumed (they have workers of their own)",
        "matches_per_minute_1_process": round(per_minute[1], 1),
        "matches_per_minute_2_processes": round(per_minute[2], 1),
        "ratio": round(statistics.median(ratios), 3),
        # A match's time inside play_match, against the wall time per match of one process:
        # the difference is what the broker round trip and the worker loop cost per match.
        "median_play_match_ms": round(statistics.median(inside) * 1000, 1) if inside else None,
        "wall_ms_per_match_1_process": round(60_000 / per_minute[1], 1),
        "ratio_overall": round(per_minute[2] / per_minute[1], 3),
        "round_ratios": [round(r, 3) for r in ratios],
        "second_process_share": [round(s / matches, 3) for s in shares],
        "target_ratio": 1.7,
        # Storage of what was played, for the capacity plan: the whole events table (heap,
        # TOAST and indexes) over its rows, in this run's (or --in-place, the given) database.
        "events_per_match": round(events / max(played, 1), 1),
        "event_table_bytes_per_event": round(table_bytes / max(events, 1), 1),
        "queues": sorted(queues.values()),  # this run's, deleted from the broker after
    }
