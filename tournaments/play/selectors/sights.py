"""The rows who-sees-what reads: whether a duplicate deal plays on, who plays which seat.

tournaments/play/visibility.py holds the rules and runs no query of its own: a list or a detail
read through play's selectors carries what the rules ask (its deal's state annotated,
``with_deal_state``; its seats prefetched), and a match in hand without them (the admin's, a
service's) is read here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import BooleanField, Case, Exists, OuterRef, Q, QuerySet, Value, When

from tournaments.play.models import Match, Seat
from tournaments.play.visibility import DEAL_PLAYING, OVER, is_over, user_id

DEAL_PLAYS_ON: list[Callable[[Any], Q]] = []
"""What else keeps a duplicate deal playing, besides a match of it not over: each takes the deal
(a key, or ``OuterRef("deal")``) and gives a condition. Competition adds that a fixture of it may
still be played (``tournaments.competition.selectors.fixture_to_play``, added by the app's
``ready``): play names nothing of competition."""


def _deal_plays_on(deal: Any) -> Q:
    """Whether the duplicate deal ``deal`` (a key, or ``OuterRef("deal")``) is still being played:
    a match of it is not over, or a fixture of it may still be played (not started yet, or void
    while its season runs: staff may re-run it, on the same seed)."""
    unfinished = Match.objects.filter(deal=deal).exclude(status__in=OVER)
    plays_on = Q(Exists(unfinished))
    for condition in DEAL_PLAYS_ON:
        plays_on |= condition(deal)
    return plays_on


def with_deal_state(matches: QuerySet[Match]) -> QuerySet[Match]:
    """``matches`` with whether each one's deal plays on, in the same query (lists ask
    ``visibility.deal_over`` of every row)."""
    return matches.annotate(
        **{
            DEAL_PLAYING: Case(
                When(deal__isnull=True, then=Value(False)),
                When(_deal_plays_on(OuterRef("deal")), then=Value(True)),
                default=Value(False),
                output_field=BooleanField(),
            )
        }
    )


def deal_over_q() -> Q:
    """``visibility.deal_over`` as a filter on Match."""
    return Q(status__in=OVER) & (Q(deal__isnull=True) | ~_deal_plays_on(OuterRef("deal")))


def deal_playing(match: Match) -> bool:
    """Whether the duplicate deal of ``match`` (which has one) still plays on: the read
    ``visibility.deal_over`` makes of a match not read ``with_deal_state``."""
    return Match.objects.filter(pk=match.pk).filter(_deal_plays_on(OuterRef("deal"))).exists()


def seats_played_by(uid: int, match: Match) -> frozenset[int]:
    """Seat numbers of ``match`` played by versions of account ``uid``'s bots, or by it in
    person: the read ``visibility.seats_of`` makes of a match whose seats are not prefetched."""
    return frozenset(
        Seat.objects.filter(
            Q(bot_version__bot__owner_id=uid) | Q(player_id=uid), match=match
        ).values_list("number", flat=True)
    )


def person_seats(user: Any, match: Match) -> list[int]:
    """The seats ``user`` plays in person in ``match`` (they act for them until it is over)."""
    uid = user_id(user)
    if uid is None:
        return []
    return list(
        Seat.objects.filter(match=match, player_id=uid)
        .order_by("number")
        .values_list("number", flat=True)
    )


def may_act(user: Any, match: Match, seat: int) -> bool:
    """Whether ``user`` may submit actions for ``seat``: it is their own person's seat, and
    the match is not over. Nobody else may, staff included."""
    uid = user_id(user)
    if uid is None or is_over(match):
        return False
    return Seat.objects.filter(match=match, number=seat, player_id=uid).exists()
