"""Postgres restarted while workers play: the matches resume from their stored events and finish."""

from __future__ import annotations

import psycopg
import pytest
from django.conf import settings

from tests.faults.conftest import (
    Stack,
    assert_intact,
    django_shell,
    platform_env,
    statuses,
    verify_clean,
    wait_until,
)
from tests.faults.services import OwnPostgres
from tournaments.play.runner import MAX_ATTEMPTS
from tournaments.tasks import play_match

pytestmark = [pytest.mark.faults, pytest.mark.e2e]

# Two matches with a sandboxed bot (leased, a flush per decision) and two of built-ins only
# (unleased, streamed COPY), created in the database of the test's own cluster.
SEED = """
import json
from pathlib import Path
from tests.factories import BotVersionFactory, MatchFactory, SeatFactory
source = Path("tests/faults/bots/steady_bot.py").read_bytes()
ids = []
for seed in (3, 4):
    match = MatchFactory(game="brexit", seed=seed)
    SeatFactory(match=match, number=0, bot_version=BotVersionFactory(bot__game="brexit", upload=source))
    for number in (1, 2):
        SeatFactory(match=match, number=number, bot_version=None, builtin="random")
    ids.append(str(match.id))
for game in ("brexit", "brasilis"):
    match = MatchFactory(game=game, seed=5)
    for number in range(3):
        SeatFactory(match=match, number=number, bot_version=None, builtin="random")
    ids.append(str(match.id))
print(json.dumps(ids))
"""


def test_matches_resume_after_postgres_restarts(own_postgres: OwnPostgres, stack: Stack) -> None:
    db = own_postgres.url("backroom")
    env = platform_env(DATABASE_URL=db, MATCH_LEASE_SECONDS="4")
    ids: list[str] = django_shell(env, SEED)
    workers = [stack.worker(env), stack.worker(env)]
    for match_id in ids:
        play_match.apply_async((match_id,), queue=settings.MATCH_QUEUE)

    wait_until(
        lambda: any(v > 20 for s, v in statuses(db, ids).values() if s == "running"),
        90,
        "a match under way",
        *workers,
    )
    own_postgres.stop()  # every connection is cut mid-match
    # Down until a task's first two retries have failed too (its third waits 4 s): longer than
    # the matches' 4 s leases, so the retries after it find the interrupted matches' leases
    # expired. A shorter outage leaves a match held by its dead attempt while the messages that
    # would resume it are spent on others; only beat's reaper, not running here, resends it.
    wait_until(
        lambda: any("database unavailable, trying again in 4 s" in w.log for w in workers),
        60,
        "a task's retries to fail twice in the outage",
        *workers,
        seen=lambda: [w.log.count("database unavailable") for w in workers],
    )
    own_postgres.start()

    wait_until(
        lambda: all(s in ("finished", "aborted") for s, _ in statuses(db, ids).values()),
        150,
        "every match to end",
        *workers,
    )
    assert_intact(db, ids)
    assert verify_clean(env)["matches"] == len(ids)
    # The outage did hit the workers, and they tried again instead of giving up.
    assert any("database unavailable, trying again" in w.log for w in workers)


# Three sandboxed seats of a bot that takes its time: about 30 decisions of a quarter of a
# second each, a flush after each, so the match is still being played at every outage.
ONE_SLOW_MATCH = """
import json
from pathlib import Path
from tests.factories import BotVersionFactory, MatchFactory, SeatFactory
source = Path("tests/faults/bots/slow_bot.py").read_bytes()
match = MatchFactory(game="brexit", seed=6)
for number in range(3):
    # Named apart from the bots an earlier test of the module made in this database (the
    # factories' sequences start again in each process).
    name = f"slow-{number}-{match.id.hex[:8]}"
    version = BotVersionFactory(bot__game="brexit", bot__name=name, upload=source)
    SeatFactory(match=match, number=number, bot_version=version)
print(json.dumps([str(match.id)]))
"""


def test_outages_do_not_use_up_a_match_s_attempts(own_postgres: OwnPostgres, stack: Stack) -> None:
    """As many outages as a match has attempts, each ending the attempt of the worker playing it:
    none of them counts, so the match finishes instead of ending aborted with "3 workers
    started this match"."""
    db = own_postgres.url("backroom")
    env = platform_env(DATABASE_URL=db, MATCH_LEASE_SECONDS="4")
    ids: list[str] = django_shell(env, ONE_SLOW_MATCH)
    worker = stack.worker(env)
    play_match.apply_async((ids[0],), queue=settings.MATCH_QUEUE)

    version = 0
    for _ in range(MAX_ATTEMPTS):
        # Claimed (again) and flushed since the last outage: a worker's attempt is under way.
        wait_until(
            lambda v=version: any(s == "running" and n > v for s, n in statuses(db, ids).values()),
            120,
            "the match to be played on",
            worker,
        )
        version = statuses(db, ids)[ids[0]][1]
        own_postgres.stop()  # the attempt under way ends in the outage
        own_postgres.start()

    wait_until(
        lambda: all(s in ("finished", "aborted") for s, _ in statuses(db, ids).values()),
        180,
        "the match to end",
        worker,
    )
    assert_intact(db, ids)
    with psycopg.connect(db) as conn:
        row = conn.execute("SELECT attempts FROM tournaments_match WHERE id = %s", ids).fetchone()
    assert row == (1,)  # its first claim; each outage's attempt was given back
    # Each outage was seen by the worker: the runner reports an attempt it ended, the task a
    # retry that found the server still down. Which of the two an outage shows depends on where it
    # caught the worker (under load, often the first alone), so both are counted.
    seen = worker.log.count("interrupted by a database outage") + worker.log.count(
        "database unavailable, trying again"
    )
    assert seen >= MAX_ATTEMPTS, worker.log
