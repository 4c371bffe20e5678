"""Does the ladder find the true order? A simulation with bots of known strength.

Results are drawn from Plackett-Luce with the bots' true strengths and go
through the real matchmaking (:mod:`tournaments.competition.matchmaking`) and rating code
(:mod:`tournaments.rating.ratings`), round after round, as the ladder plays them, and are
read in the ladder's order (the pure form of :mod:`tournaments.rating.ladder_order`).
No database: ``manage.py bench convergence`` prints its figures and a shorter run is a test.
"""

from __future__ import annotations

import math
import random
import statistics
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from tournaments.competition import matchmaking
from tournaments.rating import ladder_order, ratings


@dataclass(frozen=True)
class Run:
    settled_at: float | None
    """Mean games per bot from which the order kept Kendall tau >= target to the end."""
    final_tau: float
    newcomer_games: int | None
    """The new bot's own games until it sat within ±1 rank of its true place for good."""
    newcomer_error_at_8: int | None
    """Places between the new bot's ladder rank and its true rank after its 8th game."""
    newcomer_mean_error_at_8: int | None = None
    """The same, ranking by mean rating instead of the ladder's order."""


def _name(i: int) -> str:
    return f"bot{i:02d}"


def simulate(
    *,
    seed: int,
    bots: int = 20,
    seats: int = 4,
    elo_gap: float = 50.0,
    games_per_bot: int = 100,
    target: float = 0.9,
    newcomer_games: int = 30,
    recent_rounds: int = 5,
) -> Run:
    rng = random.Random(seed)  # noqa: S311 (seeded simulation, reproducible by design)
    strength = {_name(i): i * elo_gap / ratings.ELO_PER_THETA for i in range(bots)}
    # In the order the bots join (the newcomer last), which the ladder's order keeps for ties.
    skills = {p: ratings.Skill() for p in strength}
    settings = matchmaking.Settings(seats=seats, games_per_day=10**9)
    history: deque[dict[str, int]] = deque(maxlen=recent_rounds)

    def play_round() -> None:
        recent = {p: sum(h.get(p, 0) for h in history) for p in skills}
        entrants = [
            matchmaking.Entrant(p, s.rating, s.deviation, recent[p]) for p, s in skills.items()
        ]
        played: dict[str, int] = {}
        for table in matchmaking.round_tables(entrants, settings, rng):
            for seating in matchmaking.rotations(table, settings.duplicate):
                ranks = ratings.plackett_luce_draw([strength[p] for p in seating], rng)
                new = ratings.rate([skills[p] for p in seating], ranks)
                for p, s in zip(seating, new, strict=True):
                    skills[p] = s
                    played[p] = played.get(p, 0) + 1
        history.append(played)

    def true_order() -> list[str]:
        return sorted(strength, key=lambda p: -strength[p])

    taus: list[tuple[float, float]] = []
    while statistics.mean(s.games for s in skills.values()) < games_per_bot:
        play_round()
        mean_games = statistics.mean(s.games for s in skills.values())
        taus.append((mean_games, ratings.kendall_tau(ladder_order.order(skills), true_order())))
    settled_at = None
    for games, tau in reversed(taus):
        if tau < target:
            break
        settled_at = games
    # A newcomer of middling true strength, placed between two of the old bots.
    newcomer = "newcomer"
    strength[newcomer] = (bots // 2 - 0.5) * elo_gap / ratings.ELO_PER_THETA
    skills[newcomer] = ratings.Skill()
    history.clear()
    errors: list[tuple[int, int]] = []
    mean_errors: list[tuple[int, int]] = []
    while skills[newcomer].games < newcomer_games:
        play_round()
        truth = true_order().index(newcomer)
        place = ladder_order.order(skills).index(newcomer)
        by_mean = sorted(skills, key=lambda p: -skills[p].mu).index(newcomer)
        errors.append((skills[newcomer].games, abs(place - truth)))
        mean_errors.append((skills[newcomer].games, abs(by_mean - truth)))
    landed = None
    for games, error in reversed(errors):
        if error > 1:
            break
        landed = games
    at_8 = next((e for g, e in errors if g >= 8), None)
    mean_at_8 = next((e for g, e in mean_errors if g >= 8), None)
    return Run(settled_at, taus[-1][1], landed, at_8, mean_at_8)


def _log_likelihood(theta: float, table: Sequence[float], order: Sequence[int]) -> float:
    """Plackett-Luce log-likelihood of a finishing order (seat indices, best first), with
    seat 0's log-strength set to ``theta``."""
    strengths = [theta, *table[1:]]
    total = 0.0
    for k in range(len(order)):
        left = [strengths[i] for i in order[k:]]
        top = max(left)
        total += strengths[order[k]] - top - math.log(sum(math.exp(x - top) for x in left))
    return total


def oracle_newcomer_error(
    *, seed: int, bots: int = 20, seats: int = 4, elo_gap: float = 50.0, games: int = 8
) -> int:
    """Places between a newcomer's true rank and the best estimate any rating could make.

    The bound for the newcomer target: the newcomer's tables are placement tables (3 of the
    4 bots nearest its estimate, each set played once per seat rotation), every opponent's
    true strength is known, and the newcomer's strength is the exact maximum-likelihood
    estimate of its results. No online rating knows more than this.
    """
    rng = random.Random(seed)  # noqa: S311 (seeded simulation, reproducible by design)
    gap = elo_gap / ratings.ELO_PER_THETA
    field = [i * gap for i in range(bots)]
    true = (bots // 2 - 0.5) * gap
    grid = [i * gap / 20 for i in range(-20 * 4, 20 * (bots + 4))]
    seen: list[tuple[list[float], list[int]]] = []
    estimate = statistics.mean(field)
    while len(seen) < games:
        nearest = sorted(range(bots), key=lambda i: abs(field[i] - estimate))[:seats]
        table = [true, *(field[i] for i in rng.sample(nearest, seats - 1))]
        for rotation in matchmaking.rotations([str(i) for i in range(seats)]):
            seating = [int(i) for i in rotation]
            ranks = ratings.plackett_luce_draw([table[i] for i in seating], rng)
            finish = sorted(range(seats), key=lambda k: ranks[k])
            # Back in the table's own order (the newcomer is table[0]).
            seen.append((table, [seating[k] for k in finish]))
        estimate = max(grid, key=lambda t: sum(_log_likelihood(t, tb, o) for tb, o in seen))
    place = sum(1 for strength in field if strength > estimate)
    return abs(place - sum(1 for strength in field if strength > true))


def bench_convergence(*, seeds: int = 10, games_per_bot: int = 100) -> dict[str, object]:
    runs = [simulate(seed=s, games_per_bot=games_per_bot) for s in range(seeds)]
    oracle = [oracle_newcomer_error(seed=s) for s in range(20 * seeds)]
    settled = [r.settled_at for r in runs]
    landed = [r.newcomer_games for r in runs]
    return {
        "bots": 20,
        "seats": 4,
        "elo_gap": 50,
        "seeds": seeds,
        "games_per_bot_simulated": games_per_bot,
        "settled_games_per_bot_median": _median(settled),
        "settled": "mean games per bot from which Kendall tau stayed >= 0.9 (null: not by the end)",
        "settled_games_per_bot_per_seed": settled,
        "target_games_per_bot": 60,
        "final_kendall_tau_median": statistics.median(r.final_tau for r in runs),
        "newcomer_games_to_land_median": _median(landed),
        "newcomer": "own games until the new bot stays within 1 rank of its true place (null: not within 30)",
        "newcomer_games_to_land_per_seed": landed,
        "newcomer_rank_error": "places between the new bot's rank and its true place after"
        " its 8th game, when it is established: in the ladder's order (ladder_order.order) and by mean rating",
        "newcomer_rank_error_after_8_games": [r.newcomer_error_at_8 for r in runs],
        "newcomer_rank_error_after_8_games_median": _median([r.newcomer_error_at_8 for r in runs]),
        "newcomer_within_1_rank_after_8_games_share": _share([r.newcomer_error_at_8 for r in runs]),
        "newcomer_rank_error_after_8_games_by_mean": [r.newcomer_mean_error_at_8 for r in runs],
        "newcomer_rank_error_after_8_games_by_mean_median": _median(
            [r.newcomer_mean_error_at_8 for r in runs]
        ),
        "newcomer_within_1_rank_after_8_games_by_mean_share": _share(
            [r.newcomer_mean_error_at_8 for r in runs]
        ),
        "target_newcomer_games": 8,
        "oracle": "the same error for the best estimate any rating could make from the same"
        " 8 games (opponents' true strengths known, exact maximum likelihood), over 20 seeds a seed:"
        " the information in 8 games bounds the newcomer target",
        "newcomer_rank_error_after_8_games_oracle_median": statistics.median(oracle),
        "newcomer_within_1_rank_after_8_games_oracle_share": _share(oracle),
    }


def _share(errors: Sequence[int | None]) -> float:
    """The share of runs whose error is within one rank (None: the bot never had 8 games)."""
    return sum(1 for e in errors if e is not None and e <= 1) / len(errors) if errors else 0.0


def _median(values: Sequence[float | None]) -> float | None:
    """The median, counting None as never (None if the median itself is never)."""
    ordered = sorted(values, key=lambda v: float("inf") if v is None else v)
    if not ordered:
        return None
    middle = ordered[(len(ordered) - 1) // 2 : len(ordered) // 2 + 1]
    if any(v is None for v in middle):
        return None
    return statistics.mean(v for v in middle if v is not None)
