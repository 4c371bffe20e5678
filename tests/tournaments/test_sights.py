"""Who-sees-what's rules run no query of their own: a match read through play's selectors
carries what they ask (its deal's state, its seats), and one in hand is read once, by
tournaments/play/selectors/sights.py."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.factories import MatchFactory, UserFactory, finish
from tournaments.play import selectors, visibility

pytestmark = pytest.mark.django_db


def test_a_listed_match_answers_the_rules_without_a_query(
    django_assert_num_queries: Any,
) -> None:
    deal = uuid.uuid4()
    over: Any = finish(MatchFactory(deal=deal))
    MatchFactory(deal=deal)  # the rest of its duplicate deal, still to play
    user = UserFactory()
    listed = selectors.match_detail(over.pk, user).get()
    with django_assert_num_queries(0):
        assert not visibility.deal_over(listed)
        assert visibility.seats_of(user, listed) == frozenset()
        assert visibility.sight(user, listed).cards == frozenset()


def test_a_match_in_hand_reads_its_deal_once(django_assert_num_queries: Any) -> None:
    deal = uuid.uuid4()
    over: Any = finish(MatchFactory(deal=deal))
    with django_assert_num_queries(1):  # sights.deal_playing, then kept on the match
        assert visibility.deal_over(over)  # the only match of its deal, and over
        assert visibility.deal_over(over)
