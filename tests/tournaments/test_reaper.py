"""The reaper, as beat runs it: what it re-queues reaches the real broker, on a queue of this run."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from tests.tournaments.conftest import MakeMatch
from tournaments import tasks
from tournaments.play import lifecycle, runner
from tournaments.play.models import Match

pytestmark = pytest.mark.django_db

SentIds = Callable[[int], list[str]]


@pytest.fixture
def match_queue(settings: Any) -> Iterator[SentIds]:
    """Sends play_match to a queue no other run uses; yields a reader of the match ids it holds."""
    from config.celery import app

    name = f"test-matches-{uuid.uuid4().hex[:12]}"
    settings.MATCH_QUEUE = name
    queue = app.amqp.queues[name]  # the queue Celery declares when it first sends to it

    def sent(expected: int) -> list[str]:
        """The match ids of the play_match messages on the queue (waits for ``expected``)."""
        ids: list[str] = []
        deadline = time.monotonic() + 5
        with app.connection_for_read() as conn:
            bound = queue(conn.default_channel)
            bound.declare()
            while time.monotonic() < deadline:
                message = bound.get(no_ack=True)
                if message is None:
                    if len(ids) >= expected:
                        break
                    time.sleep(0.05)
                    continue
                assert message.headers["task"] == "tournaments.play_match"
                args, _kwargs, _embed = message.decode()
                ids.append(args[0])
        return ids

    yield sent
    with app.connection_for_write() as conn:
        channel = conn.default_channel
        queue(channel).delete()
        queue.exchange(channel).delete()


def test_the_reaper_requeues_expired_leases_and_sends_them_again(
    builtin_match: MakeMatch, match_queue: SentIds
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
    assert match_queue(1) == [str(dead.id)]


def test_the_reaper_resends_a_match_queued_too_long(
    builtin_match: MakeMatch, match_queue: SentIds
) -> None:
    """A queued match whose message was lost (e.g. the broker restarted) is sent again."""
    lost, fresh = builtin_match(), builtin_match()
    long_ago = timezone.now() - runner.STALE_QUEUED_AFTER - timedelta(seconds=1)
    Match.objects.filter(id=lost.id).update(created_at=long_ago)

    assert tasks.reap_matches() == 1

    assert match_queue(1) == [str(lost.id)]
    assert Match.objects.get(id=lost.id).status == Match.Status.QUEUED
    assert Match.objects.get(id=fresh.id).status == Match.Status.QUEUED
