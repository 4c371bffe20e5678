"""The reaper, as beat runs it: what it re-queues reaches the real broker, on the queue of its
class (tournaments/play/dispatch.py), here queues of the test's own."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.support.queues import OwnQueues, own_queues
from tests.tournaments.conftest import MakeMatch
from tournaments import tasks
from tournaments.play import lifecycle, reaper
from tournaments.play.models import Match

pytestmark = pytest.mark.django_db


@pytest.fixture
def queues() -> Iterator[OwnQueues]:
    with own_queues() as queues:
        yield queues


def test_the_reaper_requeues_expired_leases_and_sends_them_again(
    builtin_match: MakeMatch, queues: OwnQueues
) -> None:
    live, dead = builtin_match(), builtin_match()
    assert lifecycle.do_claim(live.id, "worker-a") and lifecycle.do_claim(dead.id, "worker-b")
    Match.objects.filter(id=dead.id).update(lease_expires_at=timezone.now() - timedelta(seconds=1))

    assert tasks.reap_matches() == 1

    assert Match.objects.get(id=dead.id).status == Match.Status.QUEUED
    # No lease, but the last owner is still named: a worker back from a database outage gives
    # its attempt back only if nobody has claimed the match since (lifecycle.do_claim's refund_of).
    reaped = Match.objects.get(id=dead.id)
    assert (reaped.lease_owner, reaped.lease_expires_at) == ("worker-b", None)
    assert Match.objects.get(id=live.id).status == Match.Status.RUNNING
    assert queues.sent("matches", 1) == [("tournaments.play_match", str(dead.id))]


def test_a_persons_match_whose_lease_expired_goes_back_to_the_people_queue(
    builtin_match: MakeMatch, queues: OwnQueues
) -> None:
    """Its bots' reply is what a person waits for: the workers kept for people take it again,
    not the matches queue behind a flood of challenges."""
    dead = builtin_match(priority=Match.Priority.PERSON)
    assert lifecycle.do_claim(dead.id, "worker-b")
    Match.objects.filter(id=dead.id).update(lease_expires_at=timezone.now() - timedelta(seconds=1))

    assert tasks.reap_matches() == 1

    assert queues.sent("people", 1) == [("tournaments.play_person_match", str(dead.id))]
    assert queues.sent("matches", 0, seconds=0.5) == []


def test_the_reaper_resends_a_match_queued_too_long(
    builtin_match: MakeMatch, queues: OwnQueues
) -> None:
    """A queued match whose message was lost (e.g. the broker restarted) is sent again."""
    lost, fresh = builtin_match(), builtin_match()
    long_ago = timezone.now() - reaper.STALE_QUEUED_AFTER - timedelta(seconds=1)
    Match.objects.filter(id=lost.id).update(created_at=long_ago)

    assert tasks.reap_matches() == 1

    assert queues.sent("matches", 1) == [("tournaments.play_match", str(lost.id))]
    assert Match.objects.get(id=lost.id).status == Match.Status.QUEUED
    assert Match.objects.get(id=fresh.id).status == Match.Status.QUEUED
