"""The statements a worker runs for every match are prepared on the server, as they ask to be.

Django opens its connections with prepared statements off (psycopg's ``prepare_threshold``
None), which turned the ``prepare=True`` of the scheduler's pick, the runner's read of the
match and the worker-time charge into nothing: the pick was planned again for every match,
half of the Postgres CPU a match cost (docs/benchmarks.md, ``pg_cpu_ms_per_match``).
"""

from __future__ import annotations

import pytest
from django.db import connection

from tests.factories import UserFactory
from tournaments.play import scheduler, services
from tournaments.play.models import Match

pytestmark = pytest.mark.django_db

BUILTINS = [{"builtin": "random"}] * 4


def _prepared() -> list[str]:
    with connection.cursor() as cur:
        cur.execute("SELECT statement FROM pg_prepared_statements")
        return [" ".join(row[0].split()) for row in cur.fetchall()]


def test_a_served_match_leaves_the_pick_the_read_and_the_charge_prepared() -> None:
    user = UserFactory()
    match = services.create_challenge(user=user, game="brexit", seats=BUILTINS, queue=False)
    served = scheduler.serve(upto=int(Match.Priority.PLAY), hint=match.id)
    assert served.match_id == match.id and served.result == "finished"
    prepared = _prepared()
    assert any(s.startswith("WITH claimable AS MATERIALIZED") for s in prepared)  # the pick
    assert any(s.startswith("SELECT m.id, m.game") for s in prepared)  # the runner's read
    assert any(s.startswith("INSERT INTO tournaments_workertime") for s in prepared)  # charge


def test_django_s_own_statements_are_never_prepared() -> None:
    user = UserFactory()
    before = _prepared()
    for _ in range(10):  # psycopg's default threshold is 5 executions
        list(Match.objects.filter(created_by=user))
    assert _prepared() == before
