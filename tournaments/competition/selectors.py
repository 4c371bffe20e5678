"""Competition's reads: ladders, seasons and their fixtures, for the API, the pages and play."""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, Q

from tournaments.competition.models import Fixture, Season
from tournaments.play.models import Match

SEASON_OVER = (Season.State.FINISHED, Season.State.CANCELLED)
"""A season that plays no more fixtures: one not played by then never will be."""


def fixture_to_play(deal: Any) -> Q:
    """Whether a fixture of the duplicate deal ``deal`` (a key, or ``OuterRef("deal")``) may still
    be played: not started yet, or void while its season runs (staff may re-run it, on the same
    seed). Play's visibility asks it (``tournaments.play.visibility.DEAL_PLAYS_ON``)."""
    to_play = (
        Fixture.objects.filter(deal=deal)
        .exclude(season__state__in=SEASON_OVER)
        .filter(Q(match__isnull=True) | Q(match__status=Match.Status.ABORTED))
    )
    return Q(Exists(to_play))
