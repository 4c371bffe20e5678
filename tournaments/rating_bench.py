"""``manage.py bench ratings``: the ratings read model against the bare library, in one run.

It stores N synthetic rated 4-player results (matches, seats, and one
``match_finished`` event each, written by COPY as the runner writes them), then
measures, side by side:

* rating updates per second through the feed consumer (read the feed, join
  the seats, rate, write ratings and history, move the checkpoint), and the
  same updates done by the bare library (openskill's ``rate`` on in-memory
  ratings, nothing else);
* seconds to rebuild every rating from the stored events (``ratings rebuild``),
  and whether the rebuilt ratings equal the stored ones.
"""

from __future__ import annotations

import random
import time
import uuid
from typing import Any

import orjson
from django.db import connection
from uuid_utils.compat import uuid7

from games.engine.platform_events import MATCH_FINISHED
from tournaments import rating_feed, ratings
from tournaments.models import Ladder

SEATS = 4
PLAYERS = 40


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
                ranks = ratings.plackett_luce_draw([strength[p] for p in table], rng)
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


def _bare(played: list[tuple[tuple[str, ...], tuple[int, ...]]]) -> float:
    """Seconds for openskill alone to rate the same results in the same order."""
    skills: dict[str, tuple[float, float]] = {}
    start = time.perf_counter()
    for players, ranks in played:
        new = ratings.bare_rate(
            [skills.get(p, (ratings.MU, ratings.SIGMA)) for p in players], ranks
        )
        for p, s in zip(players, new, strict=True):
            skills[p] = (s.mu, s.sigma)
    return time.perf_counter() - start


def _consume_all(expected: int, consumer: str) -> float:
    start = time.perf_counter()
    done = 0
    deadline = time.monotonic() + 3600
    while done < expected and time.monotonic() < deadline:
        n = rating_feed.consume(consumer)
        done += n
        if n == 0:
            time.sleep(0.05)  # an open transaction elsewhere holds the feed's fence back
    return time.perf_counter() - start


def bench_ratings(*, results: int = 100_000) -> dict[str, Any]:
    t0 = time.perf_counter()
    _, played = store_results(results)
    setup_s = time.perf_counter() - t0
    updates = results * SEATS
    consumer_s = _consume_all(results, rating_feed.CONSUMER)
    bare_s = _bare(played)
    start = time.perf_counter()
    rebuilt = rating_feed.rebuild()
    rebuild_s = time.perf_counter() - start
    consumer_rate, bare_rate = updates / consumer_s, updates / bare_s
    return {
        "bench": "ratings",
        "results": results,
        "seats": SEATS,
        "players": PLAYERS,
        "setup_seconds": round(setup_s, 2),
        "rebuild_seconds": round(rebuild_s, 2),
        "rebuild_results": rebuilt.results,
        "rebuild_differences": len(rebuilt.differences),
        "consumer_seconds": round(consumer_s, 2),
        "consumer_updates_per_s": round(consumer_rate),
        "bare_library_updates_per_s": round(bare_rate),
        "consumer_to_bare_ratio": round(consumer_rate / bare_rate, 3),
        "target_ratio": 0.5,
        "updates": "one player's rating after one match (a 4-player result is 4 updates)",
    }
