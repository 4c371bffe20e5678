"""Multiplayer ratings as pure functions over plain data: no Django, no database.

Three views of the same results:

* **Live rating**: openskill's Plackett-Luce model, run without drift (``tau = 0``)
  because a bot version never changes; shown on an Elo-like scale. A ladder's order
  of them is :mod:`tournaments.rating.ladder_order`.
* **Classic multiplayer Elo**: every pair at a table is one Elo game, and K is
  divided by ``seats - 1`` so a table moves a rating about as much as one duel.
* **Season standings**: an offline maximum-likelihood Plackett-Luce fit of all of
  a season's results (Newton's method on the concave log-likelihood), with 95% confidence intervals from
  the observed Fisher information.

Ranks follow the games' outcome: 1 is best and tied seats share a rank.

The Elo-like scale. Plackett-Luce gives two players of means ``mu_i, mu_j`` a
win probability of ``1 / (1 + exp(-(mu_i - mu_j) / c))`` with
``c = sqrt(2) * beta`` once their uncertainty is small; Elo gives
``1 / (1 + 10 ** (-d / 400))``. Equating the two,
``elo = 1500 + (mu - 25) * 400 / (ln 10 * sqrt(2) * beta)``, about 29.5 Elo per
unit of mu with openskill's default ``beta = 25 / 6``; the deviation is scaled by
the same factor. The season fit works in log-strengths ``theta`` where
``P(i before j) = 1 / (1 + exp(theta_j - theta_i))``, so there
``elo = theta * 400 / ln 10``, the same unit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from openskill.models import PlackettLuce

MU = 25.0
SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0
ELO_BASE = 1500.0
ELO_PER_THETA = 400.0 / math.log(10.0)
ELO_PER_MU = ELO_PER_THETA / (math.sqrt(2.0) * BETA)
CONSERVATIVE_K = 3.0

# A new version of a bot starts from its predecessor's mean, with its deviation widened by
# this much (in quadrature) but never beyond a newcomer's: the new code is probably close
# to the old, and the widening lets a few games move it a long way if it is not.
NEW_VERSION_WIDEN = SIGMA / 2.0

ELO_K = 32.0

PROVISIONAL_GAMES = 8
"""A bot's rating is provisional until its 8th game (two duplicate sets of a 4-seat ladder):
until then the ladder lists it after the established bots."""


def is_provisional(games: int) -> bool:
    """Listed after the established bots (tournaments/rating/ladder_order.py)."""
    return games < PROVISIONAL_GAMES


_MODEL = PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=0.0)


class Skill(NamedTuple):
    """One player's live rating: Plackett-Luce mean and deviation, and classic Elo.

    A named tuple, not a dataclass: the feed consumer makes two per rating update, and a
    frozen dataclass costs several times as much to build.
    """

    mu: float = MU
    sigma: float = SIGMA
    elo: float = ELO_BASE
    games: int = 0

    @property
    def rating(self) -> float:
        """The mean on the Elo-like scale."""
        return to_elo(self.mu)

    @property
    def deviation(self) -> float:
        return self.sigma * ELO_PER_MU

    @property
    def conservative(self) -> float:
        """The player is very probably at least this strong (ladders cap the deviation:
        tournaments.rating.ladder_order)."""
        return self.rating - CONSERVATIVE_K * self.deviation


def to_elo(mu: float) -> float:
    return ELO_BASE + (mu - MU) * ELO_PER_MU


def new_version(previous: Skill | None) -> Skill:
    """Where a bot's new version starts: its previous version's rating, less certain."""
    if previous is None:
        return Skill()
    sigma = min(math.sqrt(previous.sigma**2 + NEW_VERSION_WIDEN**2), SIGMA)
    return Skill(mu=previous.mu, sigma=sigma, elo=previous.elo, games=0)


def rate(skills: Sequence[Skill], ranks: Sequence[int]) -> list[Skill]:
    """Everyone's rating after one match; ``ranks[i]`` is seat i's place (1 best, ties share)."""
    if len(skills) != len(ranks) or len(skills) < 2:
        raise ValueError("a rated match needs two or more seats, each with a rank")
    rating = _MODEL.rating
    new = _MODEL.rate(
        [[rating(mu=s.mu, sigma=s.sigma)] for s in skills], ranks=[float(r) for r in ranks]
    )
    elos = elo_update([s.elo for s in skills], ranks)
    return [
        Skill(team[0].mu, team[0].sigma, elo, s.games + 1)
        for s, team, elo in zip(skills, new, elos, strict=True)
    ]


def elo_update(elos: Sequence[float], ranks: Sequence[int], k: float = ELO_K) -> list[float]:
    """Classic multiplayer Elo: each pair is one game (a tie is half a win), K over seats - 1.

    Indexed loops rather than zips of tuples: the feed consumer runs this for every result,
    and the arithmetic (hence every stored bit, which the rebuild compares) is unchanged.
    """
    n = len(elos)
    if len(ranks) != n:
        raise ValueError("one rank per Elo rating")
    scale = k / (n - 1)
    out = []
    for i in range(n):
        elo, rank = elos[i], ranks[i]
        delta = 0.0
        for j in range(n):
            if j != i:
                other_rank = ranks[j]
                actual = 1.0 if rank < other_rank else 0.5 if rank == other_rank else 0.0
                delta += actual - 1.0 / (1.0 + 10.0 ** ((elos[j] - elo) / 400.0))
        out.append(elo + scale * delta)
    return out


# The live ratings of many pools, fed one result at a time in the feed's global order


class Result(NamedTuple):
    """One rated match as the ratings see it."""

    position: int
    match: str
    pool: str
    players: tuple[str, ...]
    """Seat order."""
    ranks: tuple[int, ...]
    predecessors: tuple[tuple[str, ...], ...] = ()
    """Per seat: the player's earlier versions, newest first (empty for built-ins)."""


class Change(NamedTuple):
    position: int
    match: str
    pool: str
    player: str
    rank: int
    before: Skill
    after: Skill


class Book:
    """Current skills by (pool, player); applies results in order. Online ratings depend on order."""

    def __init__(self, skills: Mapping[tuple[str, str], Skill] | None = None) -> None:
        self.skills: dict[tuple[str, str], Skill] = dict(skills or {})

    def skill(self, pool: str, player: str, predecessors: Sequence[str] = ()) -> Skill:
        """The player's skill; a first game starts from the newest rated predecessor's."""
        found = self.skills.get((pool, player))
        if found is not None:
            return found
        for previous in predecessors:
            if (pool, previous) in self.skills:
                return new_version(self.skills[(pool, previous)])
        return Skill()

    def apply(self, result: Result) -> list[Change]:
        """Rate one result; a result with a player in two seats is not rated (nothing to learn)."""
        players, pool, skills = result.players, result.pool, self.skills
        if len(set(players)) != len(players) or len(players) < 2:
            return []
        if result.predecessors:
            before = [
                self.skill(pool, p, pr) for p, pr in zip(players, result.predecessors, strict=True)
            ]
        else:
            before = [skills.get((pool, p)) or _NEWCOMER for p in players]
        after = rate(before, result.ranks)
        position, match = result.position, result.match
        changes = []
        for player, rank, b, a in zip(players, result.ranks, before, after, strict=True):
            skills[(pool, player)] = a
            changes.append(Change(position, match, pool, player, rank, b, a))
        return changes


_NEWCOMER = Skill()


# Season standings: maximum-likelihood Plackett-Luce


@dataclass(frozen=True)
class Standing:
    player: str
    elo: float
    low: float
    high: float
    games: int
    place: int = 0


@dataclass
class _Stage:
    chosen: list[int]
    remaining: list[int]


@dataclass
class _Fit:
    index: dict[str, int] = field(default_factory=dict)
    stages: list[_Stage] = field(default_factory=list)
    games: list[int] = field(default_factory=list)


# BayesElo-style prior: every player also drew one virtual game with a virtual player of
# strength 0 (one win, one loss). It keeps an unbeaten or winless player's estimate finite
# and pulls a player with few games gently towards the middle.
PRIOR_GAMES = 1.0


def _stages(results: Iterable[Mapping[str, int]]) -> _Fit:
    """Each result as a sequence of choices: each tie group picked from those not yet placed.

    Ties follow Breslow's approximation: every member of a tied group is chosen
    from the same remaining set.
    """
    fit = _Fit()
    for result in results:
        ids = []
        for player in result:
            if player not in fit.index:
                fit.index[player] = len(fit.index)
                fit.games.append(0)
            ids.append(fit.index[player])
            fit.games[fit.index[player]] += 1
        by_rank: dict[int, list[int]] = {}
        for player, rank in result.items():
            by_rank.setdefault(rank, []).append(fit.index[player])
        remaining = sorted(ids)
        for rank in sorted(by_rank):
            group = by_rank[rank]
            if len(remaining) > 1:
                fit.stages.append(_Stage(chosen=group, remaining=list(remaining)))
            remaining = [p for p in remaining if p not in group]
    return fit


def season_standings(
    results: Sequence[Mapping[str, int]], *, iterations: int = 100, tolerance: float = 1e-9
) -> list[Standing]:
    """Final standings from all results (each ``{player: rank}``), best first, with 95% CIs.

    Elo values are centred on 1500 (the field's mean); each interval is the
    estimate ± 1.96 standard errors of the player's distance from that mean.
    """
    fit = _stages(results)
    n = len(fit.index)
    if n == 0:
        return []
    theta = [0.0] * n
    for _ in range(iterations):
        gamma = [math.exp(t) for t in theta]
        info = _information(fit, gamma)
        step = _solve(info, _gradient(fit, gamma))
        # Newton's method on a concave log-likelihood; a capped step keeps the first ones sane.
        biggest = max(abs(x) for x in step)
        scale = 1.0 if biggest <= 1.0 else 1.0 / biggest
        theta = [t + scale * x for t, x in zip(theta, step, strict=True)]
        if biggest < tolerance:
            break
    gamma = [math.exp(t) for t in theta]
    cov = _inverse(_information(fit, gamma))
    mean = sum(theta) / n
    # Variance of theta_i - mean(theta): (A cov A^T)_ii with A = I - 11^T / n.
    row_means = [sum(row) / n for row in cov]
    grand = sum(row_means) / n
    names = {i: p for p, i in fit.index.items()}
    standings = []
    for i in range(n):
        var = max(cov[i][i] - 2.0 * row_means[i] + grand, 0.0)
        half = 1.96 * math.sqrt(var) * ELO_PER_THETA
        elo = ELO_BASE + (theta[i] - mean) * ELO_PER_THETA
        standings.append(Standing(names[i], elo, elo - half, elo + half, fit.games[i]))
    standings.sort(key=lambda s: (-s.elo, s.player))
    return [
        Standing(s.player, s.elo, s.low, s.high, s.games, place)
        for place, s in enumerate(standings, 1)
    ]


def _information(fit: _Fit, gamma: Sequence[float]) -> list[list[float]]:
    """Observed Fisher information of the log-likelihood in theta = log(gamma)."""
    n = len(gamma)
    info = [[0.0] * n for _ in range(n)]
    for i, g in enumerate(gamma):
        p = g / (g + 1.0)
        info[i][i] += 2.0 * PRIOR_GAMES * p * (1.0 - p)
    for stage in fit.stages:
        total = sum(gamma[p] for p in stage.remaining)
        weight = len(stage.chosen)
        probs = [(p, gamma[p] / total) for p in stage.remaining]
        for a, pa in probs:
            info[a][a] += weight * pa
            for b, pb in probs:
                info[a][b] -= weight * pa * pb
    return info


def _gradient(fit: _Fit, gamma: Sequence[float]) -> list[float]:
    """The log-likelihood's gradient in theta: choices made minus choices expected."""
    grad = [PRIOR_GAMES * (1.0 - 2.0 * g / (g + 1.0)) for g in gamma]
    for stage in fit.stages:
        total = sum(gamma[p] for p in stage.remaining)
        weight = len(stage.chosen)
        for p in stage.chosen:
            grad[p] += 1.0
        for p in stage.remaining:
            grad[p] -= weight * gamma[p] / total
    return grad


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    inverse = _inverse(matrix)
    return [sum(a * b for a, b in zip(row, vector, strict=True)) for row in inverse]


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    """Gauss-Jordan inverse with partial pivoting (the information matrix is positive definite)."""
    n = len(matrix)
    a = [row[:] + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        lead = a[col][col]
        a[col] = [x / lead for x in a[col]]
        for r in range(n):
            if r != col and a[r][col] != 0.0:
                f = a[r][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col], strict=True)]
    return [row[n:] for row in a]
