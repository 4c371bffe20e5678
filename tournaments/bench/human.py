"""``manage.py bench human``: how long a person waits for the bots' reply while ladders play.

Real Celery workers (solo pool, one process each) on queues of this run only, and the real
broker, as deployed (deploy/Procfile): ``workers`` read every queue, taking people's matches
and validations first (tournaments/play/scheduler.py), and ``people_workers`` read only
``people``, kept for people's matches. A ladder's matches of the ``quick`` built-in (each takes a
worker seconds, as a ladder match of uploaded bots does) are kept queued, at least twice as
many as the workers, for the whole run: every general worker is always busy.

Meanwhile a person (a script thinking ``think`` seconds before each move, as a person reading
the board does, longer than the scheduler's ``FAIR_HEAD_START_GAP_SECONDS``) plays ``games``
Brexit games against two built-in bots through the same service the API calls
(``services.submit_action``), choosing what the game's random bot would. Measured on the database's
clock, for each move: from the person's action (``Match.human_acted_at``) to the match
waiting for them again (``Match.suspended_at``) or over (``finished_at``): the bots' reply,
as the person sees it. Target: p95 ≤ 1,000 ms. A move after which the person decides again
with no bot to play in between (no worker involved) is counted apart, not as a reply.
"""

from __future__ import annotations

import random
import secrets
import statistics
import time
import uuid
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model

from games.engine.builtin import make_player
from games.engine.registry import get
from replays import snapshots
from tournaments.bench.children import delete_queues, routed_to
from tournaments.bench.scale import BenchWorker, worker_env
from tournaments.competition.models import Ladder
from tournaments.play import dispatch, services
from tournaments.play.models import Match, Seat

GAME = "brexit"
LADDER_BOT = "quick"


def _percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile (no interpolation: a measured value)."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(share * len(ordered)) - 1))]


class _LadderLoad:
    """Keeps ``depth`` of a ladder's matches queued, refilled as workers take them."""

    def __init__(self, tag: str, depth: int) -> None:
        self.ladder = Ladder.objects.create(name=f"bench-human-{tag}", game=GAME, seats=3)
        self.depth = depth
        self.made: list[uuid.UUID] = []

    def refill(self) -> None:
        queued = Match.objects.filter(ladder=self.ladder, status=Match.Status.QUEUED).count()
        for _ in range(self.depth - queued):
            match = Match.objects.create(
                game=GAME, seed=secrets.randbits(63), ladder=self.ladder, options={}
            )
            Seat.objects.bulk_create(
                Seat(match=match, number=n, builtin=LADDER_BOT) for n in range(3)
            )
            dispatch.play_match(str(match.pk), Match.Priority.PLAY)
            self.made.append(match.pk)

    def playing(self) -> int:
        return Match.objects.filter(ladder=self.ladder, status=Match.Status.RUNNING).count()

    def cancel(self) -> None:
        services.cancel_queued_matches(
            matches=Match.objects.filter(id__in=self.made), reason="bench human is over"
        )

    def counts(self) -> dict[str, int]:
        """Once the workers have stopped (a match being played when the bench ended is finished
        by its worker's warm shutdown)."""
        played = Match.objects.filter(id__in=self.made, status=Match.Status.FINISHED).count()
        return {"ladder_matches_made": len(self.made), "ladder_matches_played": played}


class _Person:
    """Plays seat 0 of one match as the random bot would, after thinking ``think`` seconds."""

    def __init__(self, user: Any, think: float, seed: int) -> None:
        self.user = user
        self.think = think
        self.rng = random.Random(seed)  # noqa: S311 (a simulated person's choices, not secrets)
        self.choose = make_player(GAME, "random")
        self.rules = get(GAME).rules

    def start(self) -> Match:
        seats: list[dict[str, Any]] = [
            {"human": True},
            {"builtin": "random"},
            {"builtin": "greedy"},
        ]
        return services.create_challenge(user=self.user, game=GAME, seats=seats)

    def move(self, match: Match) -> datetime:
        """Think, then answer the decision ``match`` waits for; when the action was stored."""
        time.sleep(self.think)  # a person reading the board, not a wait for a condition
        state, _ = snapshots.state_at_step(self.rules, match.id, match.last_version)
        action = self.choose(state, 0, self.rng)
        services.submit_action(
            user=self.user, match_id=match.pk, action=action, step=match.waiting_step
        )
        acted = Match.objects.values_list("human_acted_at", flat=True).get(pk=match.pk)
        assert acted is not None
        return acted


def _next_stop(match_id: uuid.UUID, after: int, deadline: float, pool: list[BenchWorker]) -> Match:
    """The match once it waits for the person at a step after ``after``, or is over."""
    while True:
        match = Match.objects.get(pk=match_id)
        over = match.status in (Match.Status.FINISHED, Match.Status.ABORTED)
        if over or (match.status == Match.Status.WAITING and (match.waiting_step or 0) > after):
            return match
        if time.monotonic() > deadline:
            raise pool[0].failure(f"bench human: match {match_id} did not reply in time")
        time.sleep(0.01)


def bench_human(
    *,
    workers: int = 2,
    people_workers: int = 1,
    games: int = 2,
    think: float = 1.5,
    max_moves: int | None = None,
    timeout: float = 600.0,
) -> dict[str, Any]:
    tag = uuid.uuid4().hex[:8]
    names = ("celery", "matches", "validation", "people", "ratings")
    queues = {q: f"bench-human-{tag}-{q}" for q in names}
    env = worker_env(queues)
    every = [queues[q] for q in ("people", "validation", "matches", "celery")]
    pool = [BenchWorker(f"human-{tag}-{n}", every, env) for n in range(workers)]
    pool += [
        BenchWorker(f"human-{tag}-p{n}", [queues["people"]], env) for n in range(people_workers)
    ]
    person = _Person(get_user_model().objects.create_user(username=f"human-{tag}"), think, 7)
    replies: list[float] = []
    busy_at_moves: list[int] = []
    own_turns = 0
    load = None
    try:
        for worker in pool:
            worker.wait_ready(120)
        deadline = time.monotonic() + timeout
        with routed_to(queues):
            load = _LadderLoad(tag, depth=2 * max(1, workers))
            load.refill()
            for _ in range(games):
                match = _next_stop(person.start().pk, 0, deadline, pool)
                while match.status == Match.Status.WAITING:
                    if max_moves is not None and len(replies) >= max_moves:
                        break
                    load.refill()
                    step = match.waiting_step or 0
                    acted = person.move(match)
                    busy_at_moves.append(load.playing())
                    match = _next_stop(match.pk, step, deadline, pool)
                    replied = match.suspended_at if match.status == "waiting" else match.finished_at
                    assert replied is not None
                    if replied < acted:  # the person's own next decision: no bot to wait for
                        own_turns += 1
                        continue
                    replies.append((replied - acted).total_seconds() * 1000)
                if max_moves is not None and len(replies) >= max_moves:
                    break
    finally:
        if load is not None:
            load.cancel()
        for worker in pool:
            worker.stop()
        ladder = load.counts() if load is not None else {}
        delete_queues(list(queues.values()))
    return {
        "bench": "human",
        "workers": workers,
        "people_workers": people_workers,
        "pool": "celery worker --pool solo, one process each; prefetch 1, late acks",
        "load": f"a ladder's {LADDER_BOT} matches of 3 built-ins, {2 * max(1, workers)} kept queued",
        "person": f"seat 0 of 3-seat {GAME} games against random and greedy, {think} s a move",
        "moves": len(replies),
        "moves_followed_by_own_turn": own_turns,
        "reply_ms": {
            "p50": round(statistics.median(replies), 1),
            "p95": round(_percentile(replies, 0.95), 1),
            "max": round(max(replies), 1),
            "mean": round(statistics.fmean(replies), 1),
        },
        "target_reply_ms_p95": "<= 1000",
        "ladder_running_at_moves_mean": round(statistics.fmean(busy_at_moves), 2),
        **ladder,
        "queues": sorted(queues.values()),  # this run's, deleted from the broker after
    }
