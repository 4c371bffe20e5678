"""Fair competition with real workers and the real broker (tournaments/play/scheduler.py).

One account floods the queue with slow challenges; another user's single challenge starts
at the next free worker, not behind the flood. A person's match and an upload's validation
are taken before the flood's queued matches.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests import own_cache
from tests.e2e.conftest import Worker, wait_until
from tests.e2e.test_challenge import sign_up
from tests.factories import BotVersionFactory
from tournaments.play.models import BotVersion, Match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]

# The slow bot at 0.2 s a decision (0.08 in the file): with 0.08 the six waiting matches of the
# flood were all started within the seconds a loaded machine took to answer the other user's
# challenge, and the test then found no flood left to be overtaken by. 0.2 stays well under
# the suite's 0.5 s move limit.
SLOW_BOT = (Path(__file__).parent / "bots" / "slow_bot.py").read_bytes().replace(b"0.08", b"0.2")


def slow_version(owner: Any) -> BotVersion:
    """A ready version of the slow bot (0.2 s a decision): a match takes a worker seconds."""
    return BotVersionFactory(bot__owner=owner, bot__game="brexit", upload=SLOW_BOT)


def challenge(client: APIClient, version: BotVersion, *, human: bool = False) -> str:
    seats: list[dict[str, Any]] = [{"bot_version": version.pk}, {"builtin": "random"}]
    seats.append({"human": True} if human else {"builtin": "random"})
    r = client.post("/api/matches/", {"game": "brexit", "seats": seats}, format="json")
    assert r.status_code == 201, r.content
    return str(r.data["id"])


def account(name: str) -> tuple[APIClient, Any]:
    from django.contrib.auth import get_user_model

    client = sign_up(name)
    return client, get_user_model().objects.get(username=name)


def running() -> int:
    return Match.objects.filter(status=Match.Status.RUNNING).count()


def test_a_flood_of_one_account_does_not_hold_back_another_users_challenge(
    start_worker: Callable[..., Worker],
) -> None:
    own_cache.clear()  # throttle counters of earlier runs
    workers = [start_worker(), start_worker()]
    flooder, flooder_user = account("flooder")
    other, other_user = account("other")
    version, other_version = slow_version(flooder_user), slow_version(other_user)
    flood = [challenge(flooder, version) for _ in range(8)]
    wait_until(lambda: running() == len(workers), 60, "both workers busy", workers[0])

    # Nothing but this request between the workers being busy and the other challenge: on a
    # loaded machine, making the other's version here once let the whole flood start first.
    mine = challenge(other, other_version)
    wait_until(
        lambda: Match.objects.get(id=mine).started_at is not None, 180, "its start", workers[1]
    )

    created, started = Match.objects.values_list("created_at", "started_at").get(id=mine)
    overtaken = Match.objects.filter(
        id__in=flood, started_at__gt=created, started_at__lt=started
    ).count()
    # No more of the flood than there are workers (those freed in the same instant) starts
    # first; first come, first served, all eight but the two running would have.
    assert overtaken <= len(workers), overtaken
    # And the flood was still waiting when the other challenge came: first come, first served,
    # these would all have gone first.
    waiting_then = Match.objects.filter(id__in=flood).exclude(started_at__lte=created).count()
    assert waiting_then >= 1
    wait_until(
        lambda: not Match.objects.filter(status__in=["queued", "running"]).exists(),
        300,
        "every match played",
        workers[0],
    )
    assert set(Match.objects.values_list("status", flat=True)) == {"finished"}


def test_a_persons_match_and_a_validation_are_taken_before_the_flood(
    start_worker: Callable[..., Worker],
) -> None:
    own_cache.clear()
    worker = start_worker()
    flooder, flooder_user = account("flooder")
    person, person_user = account("person")
    uploader, _ = account("uploader")
    version = slow_version(flooder_user)
    flood = [challenge(flooder, version) for _ in range(5)]
    wait_until(lambda: running() == 1, 60, "the worker busy", worker)

    # Made after the flood, by accounts that have used less of the workers: and taken first.
    bot = uploader.post("/api/bots/", {"game": "brexit", "name": "up"}, format="json").json()
    r = uploader.post(
        f"/api/bots/{bot['id']}/versions/",
        {"filename": "bot.py", "source": SLOW_BOT.decode()},
        format="json",
    )
    assert r.status_code == 201, r.content
    mine = challenge(person, slow_version(person_user), human=True)
    wait_until(
        lambda: (
            BotVersion.objects.get(id=r.data["id"]).status != "pending"
            and Match.objects.get(id=mine).status == Match.Status.WAITING
        ),
        240,
        "the validation and the person's match",
        worker,
    )
    smoke = Match.objects.get(validation_of_id=r.data["id"])
    # Once each existed, no match of the flood, though all were made earlier, started before
    # it (which of the two went first depends on which message the worker read first: the
    # smoke match is made when its validation's message is read).
    for urgent in (Match.objects.get(id=mine), smoke):
        overtook = Match.objects.filter(
            id__in=flood, started_at__gt=urgent.created_at, started_at__lt=urgent.started_at
        )
        assert not overtook.exists(), (urgent.priority, list(overtook.values("started_at")))
        # And some of the flood was still waiting when it came: first come, first served, that
        # would have gone first. (Whether any is still queued now depends on the machine's pace.)
        waiting_then = Match.objects.filter(id__in=flood).exclude(started_at__lte=urgent.created_at)
        assert waiting_then.exists()
