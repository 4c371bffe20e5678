"""``manage.py bench match``: how little the runner wastes on its way to disk.

In one run: matches/s played by the runner with built-in bots and persisted to
Postgres, the same matches in memory, the events/s that the persisted run
wrote, raw COPY events/s of those same events into a scratch copy of the
events table, and the ratio of persisted events/s to raw COPY.
"""

from __future__ import annotations

import random
import statistics
import time
import uuid
from typing import Any

from games.engine.driver import FLUSH_EVERY, MatchDriver, MemorySink
from games.engine.registry import get
from replays import store
from replays.store import NewEvent
from tournaments.bench.eventstore import copy_rows, encoded_rows, scratch_table
from tournaments.play import runner
from tournaments.play.models import Match, Seat
from tournaments.play.players import builtin_player
from tournaments.play.runtime import tune_gc

SEATS = 4


def _new_match(game: str, seed: int) -> Match:
    match = Match.objects.create(game=game, seed=seed, options={})
    Seat.objects.bulk_create(Seat(match=match, number=n, builtin="random") for n in range(SEATS))
    return match


def _in_memory(game: str, seeds: list[int]) -> tuple[float, int]:
    rules = get(game).rules
    events = 0
    start = time.perf_counter()
    for seed in seeds:
        sink = MemorySink()
        players = [builtin_player(game, "random", seed=seed + n) for n in range(SEATS)]
        MatchDriver(rules, seats=SEATS, seed=seed, options={}, players=players, sink=sink).run()
        events += len(sink.events)
    return time.perf_counter() - start, events


def _persisted(game: str, seeds: list[int]) -> tuple[float, list[Match]]:
    matches = [_new_match(game, seed) for seed in seeds]
    start = time.perf_counter()
    for match in matches:
        result = runner.run_match(match.id)
        if result is not runner.RunResult.FINISHED:
            raise RuntimeError(f"bench match {match.id} ended {result}")
    return time.perf_counter() - start, matches


def _raw_copy(cur: Any, matches: list[Match], flush_every: int) -> tuple[float, int]:
    """COPY the same events into a scratch table in the runner's own batches: one per flush.

    A batch per flush (and so a commit per flush, COPY being autocommitted here)
    is what any writer of these matches must do at the least; bigger batches
    would compare the runner with a writer that waits for several matches.
    """
    batches = []
    for match in matches:
        events = [
            NewEvent(type=ev.type, payload=ev.payload, metadata=ev.metadata)
            for ev in store.read(match.id)
        ]
        rows = encoded_rows(uuid.uuid4(), events)
        batches += [rows[i : i + flush_every] for i in range(0, len(rows), flush_every)]
    start = time.perf_counter()
    for batch in batches:
        copy_rows(cur, batch)
    elapsed = time.perf_counter() - start
    return elapsed, sum(len(b) for b in batches)


CHUNK = 8
"""Matches persisted, then copied raw, at a time: both sides meet the disk in the same mood."""


def _one_game(game: str, seconds: float, rounds: int) -> dict[str, Any]:
    # Size the run from a quick in-memory probe so that the persisted side takes about
    # `seconds` (a persisted match takes three to four times its in-memory time).
    probe_time, _ = _in_memory(game, [1, 2, 3])
    per_round = max(CHUNK, int(seconds / rounds / max(probe_time / 3 * 4, 1e-4)))
    memory_s = persisted_s = copy_s = 0.0
    memory_events = events = matches = 0
    round_ratios = []
    # The scratch table lives as long as the run, so that it grows as the events table does.
    with scratch_table() as cur:
        for _ in range(rounds):
            seeds = [random.getrandbits(62) for _ in range(per_round)]
            t, n = _in_memory(game, seeds)
            memory_s, memory_events = memory_s + t, memory_events + n
            # Small chunks alternate the persisted and the raw side, so that a slow spell of
            # the shared disk or CPU (they last a fraction of a second here) hits both.
            round_persisted = round_copy = 0.0
            for start in range(0, per_round, CHUNK):
                t, played = _persisted(game, seeds[start : start + CHUNK])
                round_persisted += t
                # The raw side copies exactly the events the runner stored (read back).
                t, n = _raw_copy(cur, played, FLUSH_EVERY)
                round_copy, events = round_copy + t, events + n
            round_ratios.append(round_copy / round_persisted)  # the same events on both sides
            persisted_s, copy_s = persisted_s + round_persisted, copy_s + round_copy
            matches += per_round
    persisted_rate, copy_rate = events / persisted_s, events / copy_s
    return {
        "matches": matches,
        "persisted_matches_per_s": round(matches / persisted_s, 1),
        "in_memory_matches_per_s": round(matches / memory_s, 1),
        "persisted_events_per_s": round(persisted_rate),
        "raw_copy_events_per_s": round(copy_rate),
        "persisted_to_copy_ratio": round(statistics.median(round_ratios), 3),
        "persisted_to_copy_ratio_overall": round(persisted_rate / copy_rate, 3),
        "round_ratios": [round(r, 3) for r in round_ratios],
        "events_per_match": round(memory_events / matches, 1),
    }


def bench_match(games: list[str], seconds: float = 3.0, rounds: int = 7) -> dict[str, Any]:
    """The figures per game; the target applies to each game's median round ratio.

    Each round measures the persisted matches and the raw COPY of their events back
    to back; the median over rounds is what a burst of load from elsewhere on a
    shared machine, which spoils one round, cannot move. The ratio of the totals is
    printed too.
    """
    tune_gc()  # as a worker process does at start (tournaments/tasks.py)
    return {
        "bench": "match",
        "seats": SEATS,
        "bots": "builtin:random in every seat",
        "copy_batches": "one COPY and commit per runner flush (a match, or 256 events)",
        "target_ratio": 0.4,
        "ratio": "median over rounds of persisted events/s over raw COPY events/s",
        "games": {game: _one_game(game, seconds, rounds) for game in games},
    }
