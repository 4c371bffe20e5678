"""What the sandbox costs: bot start and per-decision round trip, sandboxed vs bare.

``manage.py bench sandbox`` prints this. The same trivial bot runs under the
same bot kit both ways; "bare" is a plain subprocess with no namespaces, no
uid switch, no seccomp and no rlimits.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from games.sandbox.connection import BotConnection
from games.sandbox.limits import Limits
from games.sandbox.readiness import isolation_status, require_isolation

_BOT = "def act(observation, legal):\n    return legal['actions'][0]\n"
_START = {"type": "start", "protocol": 1, "game": "bench", "seat": 0, "seats": 1, "options": {}}
_LEGAL = {"kind": "pick", "actions": [{"pick": i} for i in range(3)], "space": None}


def _start(bot_dir: Path, mode: str) -> tuple[BotConnection, float]:
    conn = BotConnection(bot_dir, Limits(), mode=mode)
    began = time.perf_counter()
    got = conn.start(_START)
    elapsed = time.perf_counter() - began
    if got.fault is not None:
        conn.close()
        raise RuntimeError(f"{mode} bot failed to start: {got.detail} {got.stderr}")
    return conn, elapsed


def _measure(bot_dir: Path, modes: list[str], starts: int, trips: int) -> dict[str, list[float]]:
    """Start times then round trips per mode, interleaved so that noise hits all modes alike."""
    start_times: dict[str, list[float]] = {m: [] for m in modes}
    trip_times: dict[str, list[float]] = {m: [] for m in modes}
    for _ in range(starts):
        for m in modes:
            conn, elapsed = _start(bot_dir, m)
            conn.close()
            start_times[m].append(elapsed)
    conns = {m: _start(bot_dir, m)[0] for m in modes}
    try:
        for i in range(trips):
            msg = {"type": "act", "id": i + 1, "observation": {"turn": i}, "legal": _LEGAL}
            for m, conn in conns.items():
                began = time.perf_counter()
                got = conn.ask(msg, 5.0)
                trip_times[m].append(time.perf_counter() - began)
                if got.fault is not None:
                    raise RuntimeError(f"{m} bot failed to answer: {got.detail}")
    finally:
        for conn in conns.values():
            conn.close()
    return {
        **{f"{m}_start": start_times[m] for m in modes},
        **{f"{m}_trip": trip_times[m] for m in modes},
    }


def bench_sandbox(starts: int = 20, round_trips: int = 500) -> dict[str, Any]:
    """Median start and round-trip times, sandboxed and bare, and their ratios."""
    mode = require_isolation()
    with tempfile.TemporaryDirectory() as tmp:
        bot = Path(tmp)
        (bot / "bot.py").write_text(_BOT)
        _measure(bot, [mode, "bare"], 2, 20)  # warm the page cache for both
        times = {
            k: statistics.median(v)
            for k, v in _measure(bot, [mode, "bare"], starts, round_trips).items()
        }
    sandboxed_start, bare_start = times[f"{mode}_start"], times["bare_start"]
    sandboxed_trip, bare_trip = times[f"{mode}_trip"], times["bare_trip"]
    return {
        "mode": mode,
        "isolation": isolation_status()[1],
        "starts": starts,
        "round_trips": round_trips,
        "sandboxed_start_ms": round(sandboxed_start * 1000, 2),
        "bare_start_ms": round(bare_start * 1000, 2),
        "start_ratio": round(sandboxed_start / bare_start, 3),
        "sandboxed_round_trip_us": round(sandboxed_trip * 1e6, 1),
        "bare_round_trip_us": round(bare_trip * 1e6, 1),
        "round_trip_ratio": round(sandboxed_trip / bare_trip, 3),
        "targets": {"start_ratio": 2.5, "round_trip_ratio": 1.25},
    }
