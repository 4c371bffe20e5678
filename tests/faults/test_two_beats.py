"""Two beat processes started by mistake: each ladder round is still played once per time slot."""

from __future__ import annotations

import itertools
import re
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone
from django_celery_beat.models import IntervalSchedule, PeriodicTask

from config import queues
from tests.factories import finish
from tests.faults.conftest import Stack, assert_intact, platform_env, wait_until
from tournaments import tasks
from tournaments.competition import ladders, selectors
from tournaments.competition.models import Ladder, LadderRound
from tournaments.play.models import Match

pytestmark = pytest.mark.faults

BUILTINS = ["random", "greedy"]


def waiting_on(queue: str) -> int:
    """Messages ready on ``queue`` (not yet taken by a worker)."""
    from config.celery import app

    with app.connection_for_read() as conn:
        return int(conn.default_channel.queue_declare(queue=queue, passive=True).message_count)


def finish_all(ladder: Ladder) -> None:
    """The ladder's queued matches played to their end, as its workers would."""
    for match in Match.objects.filter(ladder=ladder, status=Match.Status.QUEUED):
        finish(match)


def two_builtins() -> Ladder:
    """One table of two a round, played as a duplicate set: two matches a round."""
    return Ladder.objects.create(name="beats", game="brexit", seats=2, builtins=BUILTINS)


@pytest.mark.django_db
def test_a_second_round_task_in_the_same_slot_queues_nothing(monkeypatch: Any) -> None:
    monkeypatch.setattr(tasks.play_match, "delay", lambda match_id: None)
    ladder = two_builtins()
    assert tasks.run_ladders() == 2
    # The round's matches are over before the second beat's task arrives: every bot is free.
    finish_all(ladder)
    assert tasks.run_ladders() == 0
    assert Match.objects.filter(ladder=ladder).count() == 2
    # The next slot plays its round.
    later = timezone.now() + timedelta(seconds=selectors.round_seconds())
    assert ladders.play_rounds(now=later) == 2
    assert list(LadderRound.objects.filter(ladder=ladder).values_list("matches", flat=True)) == [
        2,
        2,
    ]


@pytest.mark.django_db
def test_a_slot_whose_task_was_lost_is_played_by_the_next_one(monkeypatch: Any) -> None:
    monkeypatch.setattr(tasks.play_match, "delay", lambda match_id: None)
    ladder = two_builtins()
    step = timedelta(seconds=selectors.round_seconds())
    now = timezone.now()
    assert ladders.play_rounds(now=now) == 2
    finish_all(ladder)
    # The next slot's task is lost (the broker was down); the one after plays both.
    assert ladders.play_rounds(now=now + 2 * step) == 2  # the missed slot's; its bots then busy
    slots = list(LadderRound.objects.filter(ladder=ladder).order_by("slot"))
    assert [r.slot - slots[0].slot for r in slots] == [timedelta(0), step, 2 * step]
    assert [r.matches for r in slots] == [2, 2, 0]
    assert ladders.play_rounds(now=now + 2 * step) == 0  # and once only
    # A long outage: only the newest missed slots are played late, not a burst of them.
    finish_all(ladder)
    later = now + 20 * step
    assert ladders.missed_slots(
        ladder, ladders.slot_of(later, int(step.total_seconds())), int(step.total_seconds())
    ) == [ladders.slot_of(later - n * step, int(step.total_seconds())) for n in (3, 2, 1)]


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_two_beats_play_each_round_once(stack: Stack, tmp_path: Any) -> None:
    ladder = two_builtins()
    every, _ = IntervalSchedule.objects.get_or_create(every=2, period=IntervalSchedule.SECONDS)
    PeriodicTask.objects.update_or_create(
        name="ladder rounds", defaults={"task": queues.RUN_LADDERS, "interval": every}
    )
    env = platform_env()
    worker = stack.worker(env)
    beats = [stack.beat(env, tmp_path / f"beat{n}") for n in (1, 2)]

    def tasks_received() -> int:
        return len(re.findall(r"Task tournaments\.run_ladders\[\S+\] received", worker.log))

    def tasks_done() -> int:
        return len(re.findall(r"Task tournaments\.run_ladders\[\S+\] succeeded", worker.log))

    def rounds() -> int:
        return LadderRound.objects.filter(ladder=ladder).count()

    # Until both beats have sent a round of one slot: a task done that made no round. (On a
    # loaded machine the beats' ticks may fall in different slots for a while.)
    wait_until(
        lambda: tasks_received() >= 6 and tasks_done() > rounds(),
        120,
        "both beats to send a round of the same slot",
        worker,
        *beats,
    )
    for beat in beats:
        beat.stop()
    # Every task the beats sent has been run: none is waiting on the queue, and the worker has
    # finished each one it received (it takes one at a time).
    wait_until(
        lambda: (
            waiting_on(settings.CELERY_TASK_DEFAULT_QUEUE) == 0 and tasks_done() == tasks_received()
        ),
        60,
        "the rounds sent to be run",
        worker,
        *beats,
    )
    wait_until(
        lambda: not Match.objects.filter(ladder=ladder).exclude(status="finished").exists(),
        90,
        "the ladder's matches to be played",
        worker,
    )

    made = list(LadderRound.objects.filter(ladder=ladder).order_by("slot"))
    played = [r for r in made if r.matches]
    # Each beat sent rounds; one round a slot was played, and only whole rounds.
    assert len(made) < tasks_received()
    assert played and {r.matches for r in played} == {2}
    ids = [str(i) for i in Match.objects.filter(ladder=ladder).values_list("id", flat=True)]
    assert len(ids) == 2 * len(played)
    # No round in a slot too soon after another: one beat's pace.
    gaps = [(b.slot - a.slot).total_seconds() for a, b in itertools.pairwise(made)]
    assert all(gap >= 2 for gap in gaps), gaps
    db = connection.settings_dict
    assert_intact(f"postgresql://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}", ids)
