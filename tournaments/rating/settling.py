"""About how many more games until a rating is settled: what a bot page tells its author.

A ladder ranks a bot by its rating less three deviations, the deviation capped at the median of
the placed bots' (:mod:`tournaments.rating.ladder_order`). A bot that has played fewer than
``PROVISIONAL_GAMES``, or whose deviation is still above that cap, is not settled: its place can
still move a long way on its results alone.

How fast a deviation shrinks depends on the deviations at the table (a game against well-known
opponents tells more), not much on the results, so the estimate plays the rating forward: the
bot against ``seats - 1`` opponents as the pool's typical placed bot (its median deviation), each
place in turn, through the ladder's own rating update, until it is settled. An estimate, said
as one ("about"): real tables and results vary.
"""

from __future__ import annotations

from tournaments.rating.ratings import ELO_PER_MU, PROVISIONAL_GAMES, Skill, rate

LIMIT = 500
"""Games looked ahead at most: a deviation that does not reach the cap by then never will."""


def games_to_settle(skill: Skill, *, seats: int, cap: float, typical: float) -> int | None:
    """About how many more games until ``skill`` is placed and its deviation at most ``cap``,
    playing opponents of deviation ``typical`` (both on the Elo-like scale). None: not within
    ``LIMIT`` games."""
    opponent = Skill(mu=skill.mu, sigma=typical / ELO_PER_MU, games=PROVISIONAL_GAMES)
    games = 0
    while skill.games < PROVISIONAL_GAMES or skill.deviation > cap:
        if games == LIMIT:
            return None
        table = [skill, *[opponent] * (seats - 1)]
        skill = rate(table, [1 + (games + i) % seats for i in range(seats)])[0]
        games += 1
    return games
