"""What one played match costs Postgres: CPU of the backend that created, claimed and wrote it.

Each match goes the way a challenge goes in production, in this process and on its one
connection: ``services.create_challenge`` (the match row, its seats, in one transaction),
then a worker's wake-up, ``scheduler.serve`` (the pick-and-claim statement, the runner's
read of the match, its streamed COPY of every event with the triggers that keep the stream
gap-free and project the result onto the match and its seats, the lease let go, the worker
time charged). Not counted: the broker (the match's message, the ratings wake-up, both
RabbitMQ's), and the ratings consumer (a challenge is unrated; ``bench ratings`` measures it).

The CPU is read from ``/proc/<backend pid>/schedstat`` (nanoseconds on a CPU; Postgres on
this host), before and after each phase: one backend does all of a match's writes here, so
its CPU is the match's, whatever else runs on the machine.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from replays import store
from tournaments.bench.backend import backend_pid
from tournaments.bench.endpoints import run_seconds
from tournaments.play import scheduler, services
from tournaments.play.models import Match

GAME = "brexit"
SEATS = [{"builtin": "random"}] * 4
ROUNDS = 5


@contextmanager
def _ratings_not_woken() -> Iterator[None]:
    """The bench sends nothing to the broker: a finished match's ratings wake-up is a message."""
    from tournaments.rating import wake

    store.stored.disconnect(dispatch_uid="ratings follow results")
    try:
        yield
    finally:
        store.stored.connect(wake.on_stored, dispatch_uid="ratings follow results")


def match_costs(matches: int, user: Any) -> dict[str, Any]:
    """Play ``matches`` Brexit matches of 4 random bots, created and served as a worker does;
    Postgres CPU per match, split between the creation and the rest."""
    pid = backend_pid()
    per_round = max(1, matches // ROUNDS)
    create_s = play_s = 0.0
    played: list[Any] = []
    round_ms = []
    with _ratings_not_woken():
        # A first match outside the figures: plans prepared, caches warm, as on a worker.
        warm = services.create_challenge(user=user, game=GAME, seats=SEATS, queue=False)
        scheduler.serve(upto=int(Match.Priority.PLAY), hint=warm.id)
        for _ in range(ROUNDS):
            round_cpu = 0.0
            for _ in range(per_round):
                before = run_seconds(pid)
                match = services.create_challenge(user=user, game=GAME, seats=SEATS, queue=False)
                created = run_seconds(pid)
                served = scheduler.serve(upto=int(Match.Priority.PLAY), hint=match.id)
                after = run_seconds(pid)
                if served.match_id != match.id or served.result != "finished":
                    raise RuntimeError(f"bench match cost: {match.id} served {served}")
                create_s += created - before
                play_s += after - created
                round_cpu += after - before
                played.append(match.id)
            round_ms.append(1000 * round_cpu / per_round)
    if backend_pid() != pid:
        raise RuntimeError("bench match cost: the connection changed mid-way")
    events = sum(Match.objects.filter(id__in=played).values_list("last_version", flat=True))
    return {
        "pg_cpu_ms_per_match": round(statistics.median(round_ms), 2),
        "pg_cpu_ms_per_match_rounds": [round(ms, 2) for ms in round_ms],
        "pg_cpu_ms_create": round(1000 * create_s / len(played), 2),
        "pg_cpu_ms_play": round(1000 * play_s / len(played), 2),
        "matches": len(played),
        "events_per_match": round(events / len(played), 1),
        "match_cost": (
            f"{GAME}, {len(SEATS)} built-in random bots: create_challenge, then scheduler.serve"
            " (pick and claim, the runner's reads and streamed COPY with its triggers, the lease"
            " let go, worker time charged); one backend, /proc/<pid>/schedstat; median of"
            f" {ROUNDS} rounds' means. Not counted: the broker, the ratings consumer"
        ),
    }
