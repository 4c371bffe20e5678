"""``manage.py bench replay``: is every step of a long match as fast to serve as step 1?

The match: a real Bra$ilis game (5 seats, 9 rounds, a verdict after every decision
as for uploaded bots), the longest the engine allows, padded with further verdict
events spread through the stream up to ``events`` (3,000): the longest legal game
is about 1,900 events, and verdicts are read and skipped like any platform event.
Each figure is the time to answer ``GET /api/matches/{id}/state/?step=N&view=seat0``
through Django in-process (no network), after one warm-up request has left the
snapshots behind; random steps and step 1 alternate so both see the same machine.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client

from games.engine.builtin import make_player
from games.engine.driver import InProcess, MatchDriver, MemorySink
from games.engine.platform_events import verdict_event
from games.engine.registry import get
from replays import store
from replays.store import NewEvent
from tournaments.play.models import Match, Seat

SEATS, ROUNDS = 5, 9


def _long_game(events: int) -> tuple[dict[str, Any], int, list[Any]]:
    info = get("brasilis")
    options = info.rules.options(SEATS, {"more_your_way": {"rounds": ROUNDS}})
    sink = MemorySink()
    players = [InProcess(make_player("brasilis", "random"), external=True) for _ in range(SEATS)]
    MatchDriver(info.rules, seats=SEATS, seed=1, options=options, players=players, sink=sink).run()
    game = list(sink.events)
    real = len(game)
    padding = max(0, events - real)
    # One extra verdict after evenly spaced events, never after the final match_finished.
    after = {i * (real - 1) // padding for i in range(padding)} if padding else set()
    padded: list[Any] = []
    for n, ev in enumerate(game):
        padded.append(ev)
        if n in after:
            padded.append(verdict_event(0, "ok", detail="", elapsed_ms=1, strikes=0, step=n))
    return options, real, padded


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def bench_replay(events: int = 3000, rounds: int = 200) -> dict[str, Any]:
    options, real, game = _long_game(events)
    rules = get("brasilis").rules
    match = Match.objects.create(game="brasilis", options=options, seed=1)
    Seat.objects.bulk_create(Seat(match=match, number=n, builtin="random") for n in range(SEATS))
    store.append(
        match.id, [NewEvent.from_engine(ev, engine_version=rules.engine_version) for ev in game], 0
    )
    match.refresh_from_db()
    last = match.last_version
    staff = get_user_model().objects.create(username="bench-replay", is_staff=True)
    host = next((h.lstrip(".") for h in settings.ALLOWED_HOSTS if h != "*"), "localhost")
    client = Client(HTTP_HOST=host)
    client.force_login(staff)
    url = f"/api/matches/{match.pk}/state/?view=seat0&step="

    def timed(step: int) -> float:
        start = time.perf_counter()
        response = client.get(url + str(step))
        elapsed = time.perf_counter() - start
        assert response.status_code == 200, response.content[:200]
        return elapsed * 1000

    timed(last)  # the first viewer of the last step leaves a snapshot every 50 events
    rng = random.Random(3)  # noqa: S311 (a fixed seed for comparable runs)
    at_random, at_first = [], []
    for _ in range(rounds):
        at_random.append(timed(rng.randint(1, last)))
        at_first.append(timed(1))
    random_median, first_median = statistics.median(at_random), statistics.median(at_first)
    return {
        "match_events": last,
        "game_events": real,
        "padding_verdicts": last - real,
        "requests_each": rounds,
        "random_step_ms": {
            "median": round(random_median, 3),
            "p95": round(_percentile(at_random, 0.95), 3),
        },
        "step_1_ms": {
            "median": round(first_median, 3),
            "p95": round(_percentile(at_first, 0.95), 3),
        },
        "ratio_median": round(random_median / first_median, 3),
        "ratio_p95": round(_percentile(at_random, 0.95) / _percentile(at_first, 0.95), 3),
        "target": "ratio <= 2",
    }
