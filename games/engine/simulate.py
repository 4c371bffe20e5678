"""Many in-process games between built-in bots, and the statistics that compare them.

Seats rotate across games (game ``i`` seats the line-up shifted by ``i``) so
that position bias cancels. A win shared by ``k`` seats counts ``1/k`` to
each (fractional wins). Win rates carry a 95% Wilson interval, mean ranks a
95% normal interval.
"""

from __future__ import annotations

import functools
import json
import math
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any

from games.engine.builtin import make_player
from games.engine.driver import MatchDriver, MatchStopped, MemorySink, SeatPlayer
from games.engine.match import LocalMatch
from games.engine.registry import get
from games.engine.types import Outcome

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal."""


@dataclass(frozen=True)
class SeatResult:
    """How one bot did in one game."""

    bot: str
    seat: int
    rank: int
    score: float
    win: float
    """1 for a sole winner, 1/k when k seats share rank 1, else 0."""
    faults: int = 0
    """Decisions whose verdict was not ok (uploaded bots, see play_driven)."""


@dataclass(frozen=True)
class BotStats:
    bot: str
    games: int
    wins: float
    win_rate: float
    win_low: float
    win_high: float
    mean_rank: float
    rank_low: float
    rank_high: float
    mean_score: float


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (fractional successes allowed)."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At p = 0 or 1 the bound is exactly 0 or 1; the formula leaves rounding dust there.
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= n else min(1.0, centre + half)
    return low, high


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """Mean and its normal-approximation interval (sample standard deviation)."""
    n = len(values)
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = sum(values) / n
    if n == 1:
        return mean, mean, mean
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(var / n)
    return mean, mean - half, mean + half


def summarise(results: Iterable[SeatResult]) -> list[BotStats]:
    """Per bot kind, over every seat it held: games, wins, win rate and mean rank with CIs."""
    by_bot: dict[str, list[SeatResult]] = {}
    for r in results:
        by_bot.setdefault(r.bot, []).append(r)
    stats = []
    for bot, rows in by_bot.items():
        n = len(rows)
        wins = sum(r.win for r in rows)
        low, high = wilson(wins, n)
        mean_rank, rank_low, rank_high = mean_interval([float(r.rank) for r in rows])
        stats.append(
            BotStats(
                bot=bot,
                games=n,
                wins=wins,
                win_rate=wins / n,
                win_low=low,
                win_high=high,
                mean_rank=mean_rank,
                rank_low=rank_low,
                rank_high=rank_high,
                mean_score=sum(r.score for r in rows) / n,
            )
        )
    return sorted(stats, key=lambda s: s.mean_rank)


def seating(lineup: Sequence[str], index: int) -> list[str]:
    """The bots of game ``index``: the line-up rotated by ``index`` seats."""
    k = index % len(lineup)
    return list(lineup[k:]) + list(lineup[:k])


@dataclass(frozen=True)
class Job:
    game: str
    lineup: tuple[str, ...]
    index: int
    seed: int
    budget_ms: float | None
    iterations: int | None


def play_one(job: Job) -> list[SeatResult]:
    """Play game ``job.index`` of a run; everything random derives from ``job.seed``."""
    rules = get(job.game).rules
    bots = seating(job.lineup, job.index)
    match_seed = job.seed * 1_000_003 + job.index
    players = [
        make_player(
            job.game,
            bot,
            budget_ms=job.budget_ms,
            iterations=job.iterations,
            seed=match_seed * 31 + seat,
        )
        for seat, bot in enumerate(bots)
    ]
    match = LocalMatch(rules, len(bots), seed=match_seed)
    outcome = match.play_out(players, random.Random(match_seed))  # noqa: S311 (the match seed's deal, reproducible by design)
    return _results(bots, outcome, [0] * len(bots))


def _results(bots: Sequence[str], outcome: Outcome, faults: Sequence[int]) -> list[SeatResult]:
    """Each seat's result of one game; a shared first place splits the win."""
    ranks = outcome["ranks"]
    firsts = ranks.count(1)
    return [
        SeatResult(
            bot=bot,
            seat=seat,
            rank=ranks[seat],
            score=outcome["scores"][seat],
            win=1.0 / firsts if ranks[seat] == 1 else 0.0,
            faults=faults[seat],
        )
        for seat, bot in enumerate(bots)
    ]


PlayerFactory = Callable[[str, int, int, int], SeatPlayer]
"""``(bot, seat, seats, seed) -> player``: how play_driven seats each bot of a line-up."""


def play_driven(job: Job, make: PlayerFactory) -> list[SeatResult]:
    """Play game ``job.index`` through the match driver, as the platform plays a match: bots
    that ``make`` puts in a sandbox get deadlines, verdicts and strikes. A game stopped by the
    driver's limits counts for no one (an empty list)."""
    rules = get(job.game).rules
    bots = seating(job.lineup, job.index)
    match_seed = job.seed * 1_000_003 + job.index
    players = [make(bot, seat, len(bots), match_seed * 31 + seat) for seat, bot in enumerate(bots)]
    driver = MatchDriver(
        rules, seats=len(bots), seed=match_seed, options={}, players=players, sink=MemorySink()
    )
    try:
        outcome = driver.run()
    except MatchStopped:
        return []
    faults = [
        sum(n for verdict, n in driver.stats[seat].verdicts.items() if verdict != "ok")
        for seat in range(len(bots))
    ]
    return _results(bots, outcome, faults)


def run(
    game: str,
    lineup: Sequence[str],
    games: int,
    *,
    seed: int = 1,
    jobs: int = 1,
    budget_ms: float | None = None,
    iterations: int | None = None,
    progress: Callable[[Iterator[list[SeatResult]], int], Iterable[list[SeatResult]]] | None = None,
    make: PlayerFactory | None = None,
) -> list[SeatResult]:
    """Play ``games`` games of ``lineup`` (one bot name per seat), on ``jobs`` processes.

    Built-in bots play in-process (play_one); with ``make`` every game goes through the match
    driver instead, with the players it makes (play_driven: uploaded bots in the sandbox).
    """
    info = get(game)
    if not info.min_seats <= len(lineup) <= info.max_seats:
        raise ValueError(
            f"{game} seats {info.min_seats}..{info.max_seats} players, not {len(lineup)}"
        )
    if make is None:
        for bot in set(lineup):  # fail before forking, with the bot's name
            make_player(game, bot)
    play: Callable[[Job], list[SeatResult]] = (
        play_one if make is None else functools.partial(play_driven, make=make)
    )
    work = [Job(game, tuple(lineup), i, seed, budget_ms, iterations) for i in range(games)]
    out: list[SeatResult] = []
    if jobs <= 1:
        stream: Iterator[list[SeatResult]] = map(play, work)
        for rows in progress(stream, games) if progress else stream:
            out.extend(rows)
        return out
    # fork keeps the parent's imports; each game is independent so order does not matter.
    with get_context("fork").Pool(jobs) as pool:
        stream = pool.imap_unordered(play, work, chunksize=1)
        for rows in progress(stream, games) if progress else stream:
            out.extend(rows)
    return out


def table(stats: Sequence[BotStats]) -> str:
    """A plain-text table, one row per bot kind.

    The first column is as wide as the longest name: an uploaded bot is named by its path,
    which pushed the rest of its row out of line under a column of eight.
    """
    width = max([8, *(len(s.bot) for s in stats)])
    head = (
        f"{'bot':<{width}} {'games':>6} {'wins':>8} {'win rate [95% CI]':>24}"
        f" {'mean rank [95% CI]':>24} {'score':>6}"
    )
    lines = [head, "-" * len(head)]
    for s in stats:
        win = f"{s.win_rate:6.1%} [{s.win_low:6.1%}, {s.win_high:6.1%}]"
        rank = f"{s.mean_rank:5.2f} [{s.rank_low:5.2f}, {s.rank_high:5.2f}]"
        lines.append(
            f"{s.bot:<{width}} {s.games:>6} {s.wins:>8.2f} {win:>24} {rank:>24}"
            f" {s.mean_score:>6.2f}"
        )
    return "\n".join(lines)


def as_json(game: str, lineup: Sequence[str], games: int, stats: Sequence[BotStats]) -> str:
    """One JSON line: the run and its per-bot statistics (rates as fractions)."""
    payload: dict[str, Any] = {
        "game": game,
        "lineup": list(lineup),
        "games": games,
        "ties": "fractional",
        "bots": [
            {
                "bot": s.bot,
                "seat_games": s.games,
                "wins": round(s.wins, 4),
                "win_rate": round(s.win_rate, 4),
                "win_ci95": [round(s.win_low, 4), round(s.win_high, 4)],
                "mean_rank": round(s.mean_rank, 4),
                "mean_rank_ci95": [round(s.rank_low, 4), round(s.rank_high, 4)],
                "mean_score": round(s.mean_score, 4),
            }
            for s in stats
        ],
    }
    return json.dumps(payload)
