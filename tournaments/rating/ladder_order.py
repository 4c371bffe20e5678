"""A ladder's order, best first: one rule, read in SQL by the site and in Python by the simulation.

The rule (docs/ladders.md, "The ladder's order"):

1. established bots (``PROVISIONAL_GAMES`` games or more) before provisional ones;
2. then by ``score``: the conservative estimate ``rating - 3 * deviation``, the deviation
   capped at the median of the established bots' (everyone's, if none is established):
   :func:`uncertainty_cap`;
3. then by mean (``mu``);
4. exact ties in the order the bots were first rated, never by player key: a private bot's
   place among equals would give its hidden key (its version id) away.

``ORDER`` states terms 1 to 3 once, and both forms are built from it. :func:`ranked` is the
SQL form: the API, the pages and the admin list a pool's rows from it, a page at a time, and
term 4 is the row's id (the feed's consumer inserts a pool's new players in the order it
first rates them). :func:`order` is the pure form, for the convergence simulation (``bench
convergence``), which has no database: term 4 is its mapping's order (a sort is stable). The
values of the terms are computed twice, beside each other below (:func:`terms`,
:func:`_sql_terms`); tests/tournaments/test_ladder_order.py checks with hypothesis that the
two forms give the same order and the same scores, to the bit, for arbitrary ratings with
exact ties.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from django.db.models import (
    Aggregate,
    BooleanField,
    Expression,
    ExpressionWrapper,
    F,
    FloatField,
    Q,
    QuerySet,
    Subquery,
)
from django.db.models.functions import Coalesce, Least

from tournaments.rating.models import Rating
from tournaments.rating.ratings import (
    CONSERVATIVE_K,
    ELO_PER_MU,
    PROVISIONAL_GAMES,
    SIGMA,
    Skill,
    is_provisional,
)


class Term(NamedTuple):
    """One key of the order: a rating's value by name (a column or an annotation of
    :func:`ranked`, a key of :func:`terms`), and which way it sorts."""

    name: str
    descending: bool


ORDER: tuple[Term, ...] = (
    Term("provisional", descending=False),
    Term("score", descending=True),
    Term("mu", descending=True),
)
"""Best first; what these leave tied keeps the order in which the bots were first rated."""


def uncertainty_cap(skills: Iterable[Skill]) -> float:
    """The most deviation a ladder subtracts: its established bots' median (everyone's, if none).

    A newcomer's deviation after its placement games is still about twice the settled
    bots' (a few games cannot say more), so ``rating - 3 * deviation`` alone would keep it
    several places below where its results put it for dozens of games. Capped at the
    field's median, an established newcomer is ranked as if it were as well known as a typical
    bot, and the settled bots, whose deviations are near the median, keep their order.
    """
    everyone = list(skills)
    established = [s.deviation for s in everyone if not is_provisional(s.games)]
    deviations = established or [s.deviation for s in everyone]
    return _median(deviations) if deviations else SIGMA * ELO_PER_MU


def _median(values: Sequence[float]) -> float:
    """The median as Postgres' ``percentile_cont(0.5)`` computes it (:class:`_Median`), to the bit."""
    ordered = sorted(values)
    middle = (len(ordered) - 1) / 2
    low, high = ordered[math.floor(middle)], ordered[math.ceil(middle)]
    return low + (high - low) * (middle - math.floor(middle))


def ladder_score(skill: Skill, cap: float) -> float:
    """What a ladder ranks by: the conservative estimate, the deviation capped at ``cap``."""
    return skill.rating - CONSERVATIVE_K * min(skill.deviation, cap)


# The pure form


def terms(skill: Skill, cap: float) -> dict[str, float]:
    """The value of each of ``ORDER``'s terms for one rating, the field's ``cap`` given."""
    return {
        "provisional": is_provisional(skill.games),
        "score": ladder_score(skill, cap),
        "mu": skill.mu,
    }


def order(skills: Mapping[str, Skill]) -> list[str]:
    """The players best first; ``skills`` in the order they were first rated, which ties keep."""
    cap = uncertainty_cap(skills.values())

    def key(player: str) -> tuple[float, ...]:
        values = terms(skills[player], cap)
        return tuple(-values[t.name] if t.descending else values[t.name] for t in ORDER)

    return sorted(skills, key=key)


# The SQL form


class _Median(Aggregate):
    function = "PERCENTILE_CONT"
    template = "%(function)s(0.5) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()


def _median_deviation(rows: QuerySet[Rating]) -> Subquery:
    return Subquery(rows.values("pool").annotate(m=_Median("deviation")).values("m")[:1])


def _sql_terms(rows: QuerySet[Rating]) -> dict[str, Expression | F]:
    """:func:`terms` in SQL over the pool's ``rows``; ``mu`` is a column. The cap is one
    uncorrelated subquery, computed once per query."""
    cap = Coalesce(
        _median_deviation(rows.filter(games__gte=PROVISIONAL_GAMES)), _median_deviation(rows)
    )
    return {
        "provisional": ExpressionWrapper(
            Q(games__lt=PROVISIONAL_GAMES), output_field=BooleanField()
        ),
        "score": F("rating") - CONSERVATIVE_K * Least(F("deviation"), cap),
    }


def ranked(pool: str) -> QuerySet[Rating]:
    """The pool's ratings best first, each annotated with ``provisional`` and ``score``."""
    rows = Rating.objects.filter(pool=pool)
    keys = [f"-{t.name}" if t.descending else t.name for t in ORDER]
    return (
        rows.select_related("bot_version__bot").annotate(**_sql_terms(rows)).order_by(*keys, "pk")
    )
