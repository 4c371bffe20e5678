"""Engine throughput, measured the same way for every game (``manage.py bench engine``)."""

from __future__ import annotations

import json
import random
import time
from typing import Any

from games.engine.match import LocalMatch, Player, replay
from games.engine.registry import GameInfo
from games.engine.types import Action, Event, Seat


def _games_per_second(
    info: GameInfo, seats: int, seconds: float, player: Player
) -> tuple[float, int]:
    rules = info.rules
    players = [player] * seats
    rng = random.Random(1)
    played = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        LocalMatch(rules, seats, seed=played).play_out(players, rng)
        played += 1
    return played / (time.perf_counter() - start), played


def _observing(info: GameInfo) -> Player:
    """The random player, but building and encoding the JSON a remote bot would get."""
    rules, act = info.rules, info.random_player

    def player(state: Any, seat: Seat, rng: random.Random) -> Action:
        json.dumps({"observation": rules.observe(state, seat), "legal": rules.legal(state, seat)})
        return act(state, seat, rng)

    return player


def _fold_rate(info: GameInfo, seats: int, games: int) -> tuple[float, int]:
    rules = info.rules
    players = [info.random_player] * seats
    rng = random.Random(2)
    streams: list[list[Event]] = []
    for seed in range(games):
        match = LocalMatch(rules, seats, seed=10_000 + seed)
        match.play_out(players, rng)
        streams.append(match.events)
    total = sum(len(s) for s in streams)
    start = time.perf_counter()
    for stream in streams:
        replay(rules, stream)
    return total / (time.perf_counter() - start), total


def bench_engine(info: GameInfo, seats: int = 4, seconds: float = 3.0) -> dict[str, Any]:
    """Games/s without and with observations, and events folded/s, on one core."""
    plain, plain_n = _games_per_second(info, seats, seconds, info.random_player)
    observed, observed_n = _games_per_second(info, seats, seconds, _observing(info))
    folded, folded_n = _fold_rate(info, seats, games=max(20, int(plain * 0.5)))
    return {
        "game": info.name,
        "seats": seats,
        "games_per_s": round(plain, 1),
        "games_played": plain_n,
        "games_per_s_with_observations": round(observed, 1),
        "games_played_with_observations": observed_n,
        "folded_events_per_s": round(folded),
        "events_folded": folded_n,
        "observation_cost_ratio": round(observed / plain, 3) if plain else None,
    }
