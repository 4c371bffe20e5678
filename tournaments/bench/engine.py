"""Engine throughput, measured the same way for every game (``manage.py bench engine``).

Everything runs in this one process, on one core. Each figure is given per
wall-clock second and per CPU second of this process: on a shared machine the
second is the steadier measure of the engine itself.
"""

from __future__ import annotations

import random
import time
from typing import Any

from games.engine.encoding import json_line
from games.engine.match import LocalMatch, Player, replay
from games.engine.registry import GameInfo
from games.engine.types import Action, Event, Seat


class Stopwatch:
    def __enter__(self) -> Stopwatch:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu


def _play_games(
    info: GameInfo, seats: int, seconds: float, player: Player
) -> tuple[int, Stopwatch]:
    rules = info.rules
    players = [player] * seats
    rng = random.Random(1)  # noqa: S311 (a fixed seed for comparable runs)
    played = 0
    with Stopwatch() as watch:
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            LocalMatch(rules, seats, seed=played).play_out(players, rng)
            played += 1
    return played, watch


def _observing(info: GameInfo) -> Player:
    """The random player, but building and encoding the JSON a sandboxed bot would get."""
    rules, act = info.rules, info.random_player

    def player(state: Any, seat: Seat, rng: random.Random) -> Action:
        json_line({"observation": rules.observe(state, seat), "legal": rules.legal(state, seat)})
        return act(state, seat, rng)

    return player


def _fold(info: GameInfo, seats: int, games: int) -> tuple[int, Stopwatch]:
    rules = info.rules
    players = [info.random_player] * seats
    rng = random.Random(2)  # noqa: S311 (a fixed seed for comparable runs)
    streams: list[list[Event]] = []
    for seed in range(games):
        match = LocalMatch(rules, seats, seed=10_000 + seed)
        match.play_out(players, rng)
        streams.append(match.events)
    with Stopwatch() as watch:
        for stream in streams:
            replay(rules, stream)
    return sum(len(s) for s in streams), watch


def bench_engine(info: GameInfo, seats: int = 4, seconds: float = 3.0) -> dict[str, Any]:
    """Games/s without and with observations, and events folded/s."""
    plain_n, plain = _play_games(info, seats, seconds, info.random_player)
    observed_n, observed = _play_games(info, seats, seconds, _observing(info))
    folded_n, folded = _fold(info, seats, games=max(20, int(plain_n / seconds * 0.5)))
    return {
        "game": info.name,
        "seats": seats,
        "games_per_s": round(plain_n / plain.wall, 1),
        "games_per_cpu_s": round(plain_n / plain.cpu, 1),
        "games_played": plain_n,
        "games_per_s_with_observations": round(observed_n / observed.wall, 1),
        "games_per_cpu_s_with_observations": round(observed_n / observed.cpu, 1),
        "games_played_with_observations": observed_n,
        "folded_events_per_s": round(folded_n / folded.wall),
        "folded_events_per_cpu_s": round(folded_n / folded.cpu),
        "events_folded": folded_n,
        "observation_cost_ratio": round((observed_n / observed.cpu) / (plain_n / plain.cpu), 3),
    }
