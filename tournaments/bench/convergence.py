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

from tournaments.bench.simulation import kendall_tau, plackett_luce_draw
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


class _Ladder:
    """A simulated ladder: bots of known strength, rated round after round as the ladder plays."""

    def __init__(self, rng: random.Random, strength: dict[str, float], seats: int, recent: int):
        self.rng = rng
        self.strength = strength
        # In the order the bots join (a newcomer last), which the ladder's order keeps for ties.
        self.skills = {p: ratings.Skill() for p in strength}
        self.settings = matchmaking.Settings(seats=seats, games_per_day=10**9)
        self.history: deque[dict[str, int]] = deque(maxlen=recent)

    def play_round(self) -> None:
        skills, history = self.skills, self.history
        recent = {p: sum(h.get(p, 0) for h in history) for p in skills}
        entrants = [
            matchmaking.Entrant(p, s.rating, s.deviation, recent[p]) for p, s in skills.items()
        ]
        played: dict[str, int] = {}
        for table in matchmaking.round_tables(entrants, self.settings, self.rng):
            for seating in matchmaking.rotations(table, self.settings.duplicate):
                ranks = plackett_luce_draw([self.strength[p] for p in seating], self.rng)
                new = ratings.rate([skills[p] for p in seating], ranks)
                for p, s in zip(seating, new, strict=True):
                    skills[p] = s
                    played[p] = played.get(p, 0) + 1
        history.append(played)

    def true_order(self) -> list[str]:
        return sorted(self.strength, key=lambda p: -self.strength[p])

    def mean_games(self) -> float:
        return statistics.mean(s.games for s in self.skills.values())

    def enter(self, player: str, strength: float, skill: ratings.Skill, replaces: str = "") -> None:
        """``player`` joins (a new version takes its predecessor's place) with ``skill``."""
        if replaces:
            del self.skills[replaces], self.strength[replaces]
        self.strength[player] = strength
        self.skills[player] = skill
        self.history.clear()

    def land(self, player: str, games: int) -> tuple[int | None, list[tuple[int, int, int]]]:
        """Play until ``player`` has ``games`` games: from which of its games it stayed within
        one place of its true rank (None: not by then), and after each round its games and its
        distance from its true place in the ladder's order and by mean rating."""
        errors: list[tuple[int, int, int]] = []
        while self.skills[player].games < games:
            self.play_round()
            truth = self.true_order().index(player)
            place = ladder_order.order(self.skills).index(player)
            by_mean = sorted(self.skills, key=lambda p: -self.skills[p].mu).index(player)
            errors.append((self.skills[player].games, abs(place - truth), abs(by_mean - truth)))
        landed = None
        for played, error, _ in reversed(errors):
            if error > 1:
                break
            landed = played
        return landed, errors


def _settled(ladder: _Ladder, games_per_bot: int, target: float) -> tuple[float | None, float]:
    """Play until the bots have ``games_per_bot`` games on average: from which mean games the
    order kept Kendall tau >= ``target`` to the end (None: not by then), and the last tau."""
    taus: list[tuple[float, float]] = []
    while ladder.mean_games() < games_per_bot:
        ladder.play_round()
        tau = kendall_tau(ladder_order.order(ladder.skills), ladder.true_order())
        taus.append((ladder.mean_games(), tau))
    settled_at = None
    for games, tau in reversed(taus):
        if tau < target:
            break
        settled_at = games
    return settled_at, taus[-1][1]


def _field(bots: int, elo_gap: float) -> dict[str, float]:
    return {_name(i): i * elo_gap / ratings.ELO_PER_THETA for i in range(bots)}


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
    ladder = _Ladder(rng, _field(bots, elo_gap), seats, recent_rounds)
    settled_at, final_tau = _settled(ladder, games_per_bot, target)
    # A newcomer of middling true strength, placed between two of the old bots.
    middle = (bots // 2 - 0.5) * elo_gap / ratings.ELO_PER_THETA
    ladder.enter("newcomer", middle, ratings.Skill())
    landed, errors = ladder.land("newcomer", newcomer_games)
    at_8 = next((e for g, e, _ in errors if g >= 8), None)
    mean_at_8 = next((m for g, _, m in errors if g >= 8), None)
    return Run(settled_at, final_tau, landed, at_8, mean_at_8)


def simulate_new_version(
    *,
    seed: int,
    moved_elo: float,
    bots: int = 20,
    seats: int = 4,
    elo_gap: float = 50.0,
    games_per_bot: int = 100,
    version_games: int = 30,
    recent_rounds: int = 5,
    from_scratch: bool = False,
) -> int | None:
    """A settled bot of middling strength uploads a new version, ``moved_elo`` stronger (0: as
    strong): its own games until the new version stays within one place of its true rank
    (None: not within ``version_games``). It enters from its predecessor's rating, widened
    (``ratings.new_version``), and takes its place in the ladder, as the platform does;
    ``from_scratch``: it enters as a new bot would, which the bench sets beside it."""
    rng = random.Random(seed)  # noqa: S311 (seeded simulation, reproducible by design)
    ladder = _Ladder(rng, _field(bots, elo_gap), seats, recent_rounds)
    _settled(ladder, games_per_bot, 0.9)
    old = _name(bots // 2)
    moved = ladder.strength[old] + moved_elo / ratings.ELO_PER_THETA
    start = ratings.Skill() if from_scratch else ratings.new_version(ladder.skills[old])
    ladder.enter("new_version", moved, start, replaces=old)
    return ladder.land("new_version", version_games)[0]


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
            ranks = plackett_luce_draw([table[i] for i in seating], rng)
            finish = sorted(range(seats), key=lambda k: ranks[k])
            # Back in the table's own order (the newcomer is table[0]).
            seen.append((table, [seating[k] for k in finish]))
        estimate = max(grid, key=lambda t: sum(_log_likelihood(t, tb, o) for tb, o in seen))
    place = sum(1 for strength in field if strength > estimate)
    return abs(place - sum(1 for strength in field if strength > true))


def bench_convergence(*, seeds: int = 10, games_per_bot: int = 100) -> dict[str, object]:
    runs = [simulate(seed=s, games_per_bot=games_per_bot) for s in range(seeds)]
    versions = {
        (moved, scratch): [
            simulate_new_version(
                seed=s, moved_elo=moved, games_per_bot=games_per_bot, from_scratch=scratch
            )
            for s in range(seeds)
        ]
        for moved in (0, 50)
        for scratch in (False, True)
    }
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
        "new_version": "own games until a settled bot's new version (as strong, or 50 Elo"
        " stronger) stays within 1 rank of its true place (null: not within 30), starting from"
        " its predecessor's rating with the deviation widened (ratings.new_version), and the"
        " same version entering from scratch as a new bot, on the same seeds",
        "new_version_games_to_land_median": {
            f"{moved:+d} elo, {'from scratch' if scratch else 'from its predecessor'}": _median(v)
            for (moved, scratch), v in versions.items()
        },
        "new_version_games_to_land_per_seed": {
            f"{moved:+d} elo, {'from scratch' if scratch else 'from its predecessor'}": v
            for (moved, scratch), v in versions.items()
        },
        "target_new_version": "from its predecessor in fewer games than from scratch",
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
