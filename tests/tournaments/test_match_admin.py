"""The admin cannot edit a match by hand: its status and result follow its events; staff's
actions (re-queue, cancel, validate again) are play's services."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from tests.factories import BotVersionFactory, MatchFactory, UserFactory, claim, finish
from tests.support.queues import OwnQueues, own_queues
from tournaments.play.models import BotVersion, Match

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


# --- staff's actions: through play's services, whose messages go through dispatch -------------


@pytest.fixture
def queues() -> Iterator[OwnQueues]:
    with own_queues() as queues:
        yield queues


def act(client: Client, model: str, action: str, ids: list[Any]) -> None:
    r = client.post(
        f"/admin/tournaments/{model}/",
        {"action": action, "_selected_action": [str(i) for i in ids]},
    )
    assert r.status_code == 302, r.content  # back to the list, the action done


def test_requeue_wakes_each_queued_or_expired_match_on_the_queue_of_its_class(
    staff_client: Client, queues: OwnQueues, django_capture_on_commit_callbacks: Any
) -> None:
    person = MatchFactory(priority=Match.Priority.PERSON)
    expired: Any = claim(MatchFactory())
    Match.objects.filter(pk=expired.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    live: Any = claim(MatchFactory())
    over: Any = finish(MatchFactory())

    with django_capture_on_commit_callbacks(execute=True):
        act(staff_client, "match", "requeue", [person.pk, expired.pk, live.pk, over.pk])

    assert queues.sent("people", 1) == [("tournaments.play_person_match", str(person.pk))]
    assert queues.sent("matches", 1) == [("tournaments.play_match", str(expired.pk))]
    statuses = dict(Match.objects.values_list("id", "status"))
    assert statuses[expired.pk] == Match.Status.QUEUED  # its dead worker's lease let go
    assert statuses[live.pk] == Match.Status.RUNNING  # a live worker's match is its own
    assert statuses[over.pk] == Match.Status.FINISHED


def test_cancel_ends_the_queued_matches_aborted_and_leaves_a_running_one(
    staff_client: Client,
) -> None:
    queued = MatchFactory()
    running: Any = claim(MatchFactory())

    act(staff_client, "match", "cancel", [queued.pk, running.pk])

    queued.refresh_from_db()
    assert queued.status == Match.Status.ABORTED and queued.error == "cancelled: by the staff"
    assert Match.objects.get(pk=running.pk).status == Match.Status.RUNNING


def test_validate_again_takes_back_a_rejection_and_leaves_a_ready_version(
    staff_client: Client, queues: OwnQueues, django_capture_on_commit_callbacks: Any
) -> None:
    rejected: Any = BotVersionFactory(
        status=BotVersion.Status.REJECTED,
        validation_error="validation failed: the worker ran out of disk",
        validated_at=timezone.now(),
    )
    ready: Any = BotVersionFactory(status=BotVersion.Status.READY, validated_at=timezone.now())

    with django_capture_on_commit_callbacks(execute=True):
        act(staff_client, "botversion", "revalidate", [rejected.pk, ready.pk])

    rejected.refresh_from_db()
    assert (rejected.status, rejected.validation_error, rejected.validated_at) == (
        BotVersion.Status.PENDING,
        "",
        None,
    )
    # Its new smoke match is queued work, as at an upload; the message is the validation's.
    smoke = Match.objects.get(validation_of=rejected)
    assert (smoke.status, smoke.priority) == (Match.Status.QUEUED, Match.Priority.VALIDATION)
    assert queues.sent("validation", 1) == [("tournaments.validate_bot_version", rejected.pk)]
    assert queues.sent("matches", 0, seconds=0.5) == []
    ready.refresh_from_db()
    assert ready.status == BotVersion.Status.READY and ready.validated_at is not None
    assert not Match.objects.filter(validation_of=ready).exists()
