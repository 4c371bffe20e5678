"""``manage.py bench ratings``: the ratings read model against the bare library, in one run.

It stores N synthetic rated 4-player results (matches, seats, and one
``match_finished`` event each, written by COPY as the runner writes them), then
measures, side by side:

* rating updates per second through the feed consumer (read the feed, join
  the seats, rate, write ratings and history, move the checkpoint), and the
  same updates done by the bare library (openskill's ``rate`` on in-memory
  ratings, nothing else), batch by batch in turn on the same results;
* seconds to rebuild every rating from the stored events (``ratings rebuild``),
  and whether the rebuilt ratings equal the stored ones.
"""

from __future__ import annotations

import os
import random
import statistics
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
from django.db import DatabaseError, connection
from openskill.models import PlackettLuce
from uuid_utils.compat import uuid7

from games.engine.platform_events import MATCH_FINISHED
from tournaments.bench.simulation import plackett_luce_draw
from tournaments.competition.models import Ladder
from tournaments.rating import rating_feed, ratings

SEATS = 4
PLAYERS = 40


_LIBRARY = PlackettLuce(mu=ratings.MU, sigma=ratings.SIGMA, beta=ratings.BETA, tau=0.0)
"""The library as the ratings configure it (tournaments/rating/ratings.py), for the bare run."""


def bare_rate(skills: Sequence[tuple[float, float]], ranks: Sequence[int]) -> list[ratings.Skill]:
    """The library call alone: what :func:`ratings.rate` costs without Elo."""
    teams = [[_LIBRARY.rating(mu=mu, sigma=sigma)] for mu, sigma in skills]
    new = _LIBRARY.rate(teams, ranks=[float(r) for r in ranks])
    return [ratings.Skill(mu=t[0].mu, sigma=t[0].sigma) for t in new]


def _copy(cur: Any, sql: str, lines: list[str]) -> None:
    with cur.copy(sql) as copy:
        copy.write("".join(lines).encode())


def store_results(
    count: int, seed: int = 1
) -> tuple[Ladder, list[tuple[tuple[str, ...], tuple[int, ...]]]]:
    """``count`` finished rated matches of a ladder, each with its match_finished event."""
    rng = random.Random(seed)  # noqa: S311 (seeded synthetic results, reproducible by design)
    ladder, _ = Ladder.objects.get_or_create(
        game="brexit", seats=SEATS, defaults={"name": "bench ladder"}
    )
    names = [f"sim{i:02d}" for i in range(PLAYERS)]
    strength = {n: i * 50 / ratings.ELO_PER_THETA for i, n in enumerate(names)}
    played: list[tuple[tuple[str, ...], tuple[int, ...]]] = []
    connection.ensure_connection()
    raw = connection.connection
    assert raw is not None
    with raw.cursor() as cur:
        for start in range(0, count, 10_000):
            matches: list[str] = []
            seats: list[str] = []
            events: list[str] = []
            for _ in range(min(10_000, count - start)):
                match_id = uuid7()
                table = rng.sample(names, SEATS)
                ranks = plackett_luce_draw([strength[p] for p in table], rng)
                played.append((tuple(f"builtin:{p}" for p in table), tuple(ranks)))
                matches.append(
                    f"{match_id}\tbrexit\t{{}}\t{rng.getrandbits(62)}\tqueued\tt\t{ladder.pk}\n"
                )
                seats.extend(f"{match_id}\t{n}\t{p}\n" for n, p in enumerate(table))
                payload = orjson.dumps(
                    {"outcome": {"ranks": ranks, "scores": [float(-r) for r in ranks]}, "seed": 1}
                ).decode()
                events.append(
                    f"{uuid.uuid4()}\t{match_id}\t1\t{MATCH_FINISHED}\t1\t{payload}\t{{}}\n"
                )
            _copy(
                cur,
                "COPY tournaments_match (id, game, options, seed, status, rated, ladder_id,"
                " created_at, last_version, attempts, lease_owner, error)"
                " FROM STDIN WITH (FORMAT text)",
                [line.rstrip("\n") + "\t" + "now\t0\t0\t\t\n" for line in matches],
            )
            _copy(
                cur,
                "COPY tournaments_seat (match_id, number, builtin, verdicts, strikes, disqualified,"
                " time_used_ms) FROM STDIN",
                [line.rstrip("\n") + "\t{}\t0\tf\t0\n" for line in seats],
            )
            _copy(
                cur,
                "COPY replays_event (event_id, stream_id, version, event_type, schema_version,"
                " payload, metadata) FROM STDIN",
                events,
            )
    return ladder, played


Played = list[tuple[tuple[str, ...], tuple[int, ...]]]


def _bare(played: Played, skills: dict[str, tuple[float, float]]) -> float:
    """Seconds for openskill alone to rate the same results in the same order.

    It does what the consumer does with the library, and nothing else: look up each
    seat's current (mu, sigma), build the library's rating objects, call ``rate``
    with the ranks, keep the new (mu, sigma).
    """
    start = time.perf_counter()
    for players, ranks in played:
        new = bare_rate([skills.get(p, (ratings.MU, ratings.SIGMA)) for p in players], ranks)
        for p, s in zip(players, new, strict=True):
            skills[p] = (s.mu, s.sigma)
    return time.perf_counter() - start


@dataclass
class Timings:
    consumer: float = 0.0
    bare: float = 0.0
    fence_wait: float = 0.0
    consumer_cpu: float = 0.0
    """This process's CPU time in the consumer, plus its database backend's when readable."""
    bare_cpu: float = 0.0
    backend_cpu_readable: bool = True
    ratios: list[float] = field(default_factory=list)
    """Each batch's consumer-to-bare ratio of rates (bare seconds over consumer seconds)."""


def _backend_cpu() -> float | None:
    """CPU seconds used so far by this connection's Postgres backend (None: not on this host)."""
    with connection.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        (pid,) = cur.fetchone()
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # utime and stime, fields 14 and 15 of proc(5), counted from the state (field 3).
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _side_by_side(played: Played, consumer: str, batch: int) -> Timings:
    """The consumer and the bare library on the same results, batch by batch, interleaved.

    Each batch the consumer rates is then rated by the bare library, so a load that
    comes and goes on a shared machine weighs on both sides alike. Time spent waiting for
    the feed's fence (another transaction on the server holding it back) is no one's work:
    it is reported apart, not counted for the consumer.
    """
    timings = Timings()
    skills: dict[str, tuple[float, float]] = {}
    done = 0
    deadline = time.monotonic() + 3600
    while done < len(played) and time.monotonic() < deadline:
        server = _backend_cpu()
        cpu, start = time.process_time(), time.perf_counter()
        n = rating_feed.consume_batch(consumer, batch)
        if n == 0:
            time.sleep(0.05)
            timings.fence_wait += time.perf_counter() - start
            continue
        consumer_s = time.perf_counter() - start
        timings.consumer += consumer_s
        timings.consumer_cpu += time.process_time() - cpu
        server_after = _backend_cpu()
        if server is None or server_after is None:
            timings.backend_cpu_readable = False
        else:
            timings.consumer_cpu += server_after - server
        cpu = time.process_time()
        bare_s = _bare(played[done : done + n], skills)
        timings.bare += bare_s
        timings.bare_cpu += time.process_time() - cpu
        timings.ratios.append(bare_s / consumer_s)
        done += n
    return timings


def _checkpoint() -> bool:
    """CHECKPOINT if this role may (a superuser or pg_checkpoint); False if it may not."""
    try:
        with connection.cursor() as cur:
            cur.execute("CHECKPOINT")
    except DatabaseError:
        return False
    return True


def bench_ratings(*, results: int = 100_000, batch: int = 5000) -> dict[str, Any]:
    t0 = time.perf_counter()
    _, played = store_results(results)
    # The setup's own writes go to disk before anything is timed: otherwise the consumer's
    # reads, interleaved with the bare side, would be the ones evicting the setup's dirty
    # pages from a small shared_buffers (the default 128 MB holds less than the backlog).
    checkpointed = _checkpoint()
    setup_s = time.perf_counter() - t0
    updates = results * SEATS
    timings = _side_by_side(played, rating_feed.CONSUMER, batch)
    start = time.perf_counter()
    rebuilt = rating_feed.rebuild()
    rebuild_s = time.perf_counter() - start
    consumer_rate, bare_rate = updates / timings.consumer, updates / timings.bare
    return {
        "bench": "ratings",
        "results": results,
        "seats": SEATS,
        "players": PLAYERS,
        "batch": batch,
        "setup_seconds": round(setup_s, 2),
        "checkpoint_before_timing": checkpointed,
        "rebuild_seconds": round(rebuild_s, 2),
        "rebuild_results": rebuilt.results,
        "rebuild_differences": len(rebuilt.differences),
        "consumer_seconds": round(timings.consumer, 2),
        "bare_library_seconds": round(timings.bare, 2),
        "fence_wait_seconds": round(timings.fence_wait, 2),
        "consumer_updates_per_s": round(consumer_rate),
        "bare_library_updates_per_s": round(bare_rate),
        "consumer_to_bare_ratio": round(consumer_rate / bare_rate, 3),
        "consumer_to_bare_ratio_median_of_batches": round(statistics.median(timings.ratios), 3),
        "consumer_to_bare_ratio_per_batch": [round(r, 3) for r in timings.ratios],
        "target_ratio": 0.5,
        "cpu": "CPU seconds, which a busy machine distorts less than elapsed time: the"
        " consumer's counts its Postgres backend's too (when the server is on this host)",
        "consumer_cpu_seconds": round(timings.consumer_cpu, 2),
        "bare_library_cpu_seconds": round(timings.bare_cpu, 2),
        "backend_cpu_counted": timings.backend_cpu_readable,
        "consumer_to_bare_cpu_ratio": round(timings.bare_cpu / timings.consumer_cpu, 3),
        "updates": "one player's rating after one match (a 4-player result is 4 updates)",
    }
