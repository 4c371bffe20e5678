"""While a person's match waits, no worker is busy with it: one solo worker plays another match.

A solo worker runs one task at a time, so the second match can only finish if the first
one's task has returned: the match waits in the database, not in a worker.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.e2e.conftest import Worker, wait_until
from tests.factories import UserFactory
from tournaments import tasks
from tournaments.play import services
from tournaments.play.models import Match

assert tasks  # registered here: the services send them by name (tournaments/play/dispatch.py)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]


def status(match: Match) -> str:
    match.refresh_from_db()
    return match.status


def test_a_waiting_match_holds_no_worker(start_worker: Callable[..., Worker]) -> None:
    worker = start_worker()
    person = UserFactory()
    waiting = services.create_challenge(
        user=person,
        game="brexit",
        seats=[{"builtin": "random"}, {"human": True}, {"builtin": "greedy"}],
        seed=3,
    )
    wait_until(lambda: status(waiting) == "waiting", 60, "the person's turn", worker)
    assert waiting.waiting_for == [1] and waiting.lease_owner == ""
    step = waiting.waiting_step

    other = services.create_challenge(
        user=person, game="brasilis", seats=[{"builtin": "greedy"}] * 3, seed=4
    )
    wait_until(lambda: status(other) == "finished", 90, "the other match to be played", worker)
    assert status(waiting) == "waiting" and waiting.last_version == step  # untouched meanwhile

    services.submit_action(user=person, match_id=waiting.pk, action={"place": []}, step=step)
    wait_until(
        lambda: status(waiting) == "finished" or (waiting.waiting_step or 0) > (step or 0),
        60,
        "the bots to answer the person's move",
        worker,
    )
    assert waiting.status in ("waiting", "finished")
