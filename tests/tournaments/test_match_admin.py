"""The admin cannot edit a match by hand: its status and result follow its events."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.factories import MatchFactory, UserFactory, claim, finish
from tournaments.play.models import Match

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client() -> Client:
    staff: Any = UserFactory(is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(staff)
    return client


def test_a_running_match_cannot_be_marked_finished_in_the_admin(staff_client: Client) -> None:
    match: Any = claim(MatchFactory())
    page = staff_client.get(f"/admin/tournaments/match/{match.pk}/change/")
    assert page.status_code == 200
    body = page.content.decode()
    # Marking it finished would open every hidden card of a running match to everyone.
    for field in ("status", "game", "rated", "seed", "options"):
        assert f'name="{field}"' not in body, field
    staff_client.post(
        f"/admin/tournaments/match/{match.pk}/change/",
        {"status": "finished", "seats-TOTAL_FORMS": "0", "seats-INITIAL_FORMS": "0"},
    )
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING


def test_matches_are_not_added_in_the_admin(staff_client: Client) -> None:
    assert staff_client.get("/admin/tournaments/match/add/").status_code == 403


def test_a_matchs_duplicate_deal_cannot_be_changed_in_the_admin(staff_client: Client) -> None:
    """Taking a finished rotation out of its deal would open it while the rest of its set plays."""
    import uuid

    deal = uuid.uuid4()
    match: Any = finish(MatchFactory(deal=deal))
    claim(MatchFactory(deal=deal))
    page = staff_client.get(f"/admin/tournaments/match/{match.pk}/change/")
    assert page.status_code == 200
    assert 'name="deal"' not in page.content.decode()
    staff_client.post(
        f"/admin/tournaments/match/{match.pk}/change/",
        {"deal": "", "seats-TOTAL_FORMS": "0", "seats-INITIAL_FORMS": "0"},
    )
    match.refresh_from_db()
    assert match.deal == deal
