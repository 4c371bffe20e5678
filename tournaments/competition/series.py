"""An account's series and sequential A/B tests at play: each running series brought up to date.

A series is created and cancelled by competition's services (services.py); its results are
read by its selectors (selectors.py: ``series_results``).

A **plain series** plays ``deals`` duplicate deals among its players: each deal (one seed) once
per seat rotation (``matchmaking.rotations``), the matches of a deal sharing ``Match.deal`` so
that what it dealt stays hidden until all of them are over (tournaments/play/visibility.py).

An **A/B test** (a series with a ``test`` block) plays pairs: deal ``k`` is played twice, with
the candidate in seat ``k mod seats`` and then the baseline in that seat, the field in the other
seats in the same order, on one seed. After each finished pair its outcome
(``sprt.pair_outcome``) feeds the sequential test (``sprt.SequentialTest``), which stops at the
first bound crossed or at the pairs cap; the matches still queued are then cancelled.

Matches are the owner's (``created_by``), so the workers share them with the owner's challenges
(tournaments/play/scheduler.py), and they are created a few deals at a time, within the owner's
allowance (``services.series_room``): :func:`advance`, run for every running series by a beat
tick (``tournaments.advance_series``, every few seconds) and once at creation. A beat tick is
the simplest robust trigger: it needs no hook in play's runner (play knows nothing of
competition), a lost message or a dead worker delays a series by one tick at most, and a tick
with nothing to do costs one query per running series.
"""

from __future__ import annotations

import secrets

from django.db import transaction
from django.utils import timezone
from uuid_utils.compat import uuid7

from tournaments.competition import selectors
from tournaments.competition.matchmaking import rotations
from tournaments.competition.models import Series
from tournaments.play import services, visibility
from tournaments.play.models import Match
from tournaments.rating import sprt

State = Series.State

IN_FLIGHT_DEALS = 2
"""Deals of one series being played at once: enough to keep a worker busy, few enough to leave
the owner's allowance to their other work and to stop an A/B test soon after its verdict."""
Z95 = sprt.Z95


# --- play ---------------------------------------------------------------------------------------


def deal_tables(series: Series, k: int) -> list[list[str]]:
    """The tables of the series' deal ``k``: each rotation (plain), or the pair (A/B)."""
    if series.test is None:
        return rotations(list(series.players))
    test = series.test
    field = list(test["field"])
    seat = k % series.seats
    return [[*field[:seat], test[version], *field[seat:]] for version in ("candidate", "baseline")]


def _unfinished_deals(series: Series) -> int:
    return (
        Match.objects.filter(series=series)
        .exclude(status__in=visibility.OVER)
        .values("deal")
        .distinct()
        .count()
    )


def advance(series: Series) -> int:
    """Bring a running series up to date: an A/B test's verdict, the series' end, and the next
    deals' matches within the owner's allowance. Returns the matches created."""
    with transaction.atomic():
        series = Series.objects.select_for_update().get(pk=series.pk)
        if series.state != State.RUNNING:
            return 0
        if series.test is not None and _decide(series):
            return 0
        playing = _unfinished_deals(series)
        if series.test is None:
            wanted = series.deals - series.deals_started
        else:
            done = len(selectors.pairs(series))
            wanted = series.test["max_games"] - done - playing
            if series.deals_started >= 2 * series.test["max_games"]:
                wanted = 0  # half its pairs void (a bot that keeps failing): stop replacing them
        if wanted <= 0 and playing == 0:
            end_series(series, State.FINISHED)
            return 0
        created = 0
        room = services.series_room(user=series.owner)
        while wanted > 0 and playing < IN_FLIGHT_DEALS:
            tables = deal_tables(series, series.deals_started)
            if room < len(tables):
                break
            _start_deal(series, tables)
            room -= len(tables)
            created += len(tables)
            wanted -= 1
            playing += 1
        return created


def _start_deal(series: Series, tables: list[list[str]]) -> None:
    seed, deal = secrets.randbits(63), uuid7()
    for table in tables:
        services.create_series_match(
            user=series.owner,
            game=series.game,
            players=table,
            seed=seed,
            options=series.options,
            series_id=series.pk,
            deal=deal,
        )
    series.deals_started += 1
    series.save(update_fields=["deals_started"])


def _decide(series: Series) -> bool:
    """Stop an A/B test at its first bound crossed or its cap; True if it stopped now."""
    test = selectors.sequential_test(series)
    counts = sprt.Counts()
    for number, pair in enumerate(selectors.pairs(series), start=1):
        counts = counts.add(pair.outcome)
        verdict = test.verdict(counts)
        if verdict != sprt.Verdict.CONTINUE:
            series.verdict, series.decided_pairs = str(verdict), number
            end_series(series, State.FINISHED)
            return True
    return False


def end_series(series: Series, state: str) -> None:
    """End ``series`` in ``state``; its queued matches are cancelled, those playing finish."""
    series.state, series.finished_at = state, timezone.now()
    series.save(update_fields=["state", "finished_at", "verdict", "decided_pairs"])
    services.cancel_queued_matches(
        matches=Match.objects.filter(series=series), reason=f"the series is {state}"
    )


def advance_all() -> int:
    """Advance every running series (the beat tick); the matches created."""
    running = list(Series.objects.filter(state=State.RUNNING).values_list("pk", flat=True))
    return sum(advance(Series(pk=pk)) for pk in running)
