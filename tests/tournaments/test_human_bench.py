"""manage.py bench human at its smallest: one general worker kept busy by a ladder, one worker
kept for people, a person moving a few times; the reply times it prints are recomputed here
from what the database recorded of the person's match."""

from __future__ import annotations

import io
import json

import pytest
from amqp.exceptions import NotFound
from django.core.management import call_command

from replays import store
from tournaments.competition.models import Ladder
from tournaments.play.models import Match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]


@pytest.mark.timeout(600)
def test_bench_human_times_the_bots_reply_to_each_move_while_a_ladder_plays() -> None:
    from config.celery import app

    out = io.StringIO()
    call_command(
        "bench", "human", "--in-place", "--workers", "1", "--people-workers", "1",
        "--games", "1", "--think", "1.1", "--max-moves", "4",
        stdout=out,
    )  # fmt: skip
    figures = json.loads(out.getvalue())
    assert figures["bench"] == "human" and figures["moves"] == 4
    [person] = Match.objects.filter(seats__player__isnull=False).distinct()
    # Four actions of the person's seat, each stored with its "ok" verdict.
    verdicts = [
        e.payload
        for e in store.read(person.pk)
        if e.type == "bot_verdict" and e.payload["seat"] == 0
    ]
    assert len(verdicts) >= 4 and {v["verdict"] for v in verdicts[:4]} == {"ok"}
    reply = figures["reply_ms"]
    assert 0 < reply["p50"] <= reply["p95"] <= reply["max"]
    # The last reply is the one the match row still holds: acted, then waiting again.
    assert person.suspended_at is not None and person.human_acted_at is not None
    last = (person.suspended_at - person.human_acted_at).total_seconds() * 1000
    assert person.status == Match.Status.WAITING and 0 < last <= reply["max"] + 0.05  # rounded
    # The ladder's matches were played meanwhile, and those left queued were cancelled.
    ladder = Ladder.objects.get(name__startswith="bench-human-")
    assert figures["ladder_matches_played"] >= 1
    assert figures["ladder_matches_played"] == ladder.matches.filter(status="finished").count()
    assert not ladder.matches.filter(status="queued").exists()
    with app.connection_for_write() as conn:
        for name in figures["queues"]:
            with conn.channel() as channel, pytest.raises(NotFound):
                channel.queue_declare(name, passive=True)
