"""The load scenario ``manage.py bench load`` runs under locust (headless, loopback only).

Each simulated user holds one of the accounts the bench made and, with a think time
between requests, mostly reads (replay states, events, standings, match lists, pages)
and sometimes writes (an unrated challenge between built-ins, a bot upload). The
write weights keep every user well under the API's rate limits for a run of minutes,
so a 429 is an error here like any other.

It reads its plan (accounts, match ids, ladder ids) from ``BACKROOM_LOAD_PLAN`` and
writes each request's kind, time and failure to ``BACKROOM_LOAD_OUT`` when locust
stops: the bench computes the figures (reads apart from writes) from those.
This file runs inside locust's gevent process: it imports nothing of the project.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

from locust import HttpUser, between, events, task

PLAN: dict[str, Any] = json.loads(Path(os.environ["BACKROOM_LOAD_PLAN"]).read_text())
ACCOUNTS: list[dict[str, Any]] = list(PLAN["accounts"])
TIMES: dict[str, list[float]] = {}
ERRORS: Counter[str] = Counter()
WINDOW: dict[str, float] = {}
"""When the users started and stopped (epoch seconds): the bench counts matches finished between."""

BOT = b'def act(observation, legal):\n    if legal["actions"]:\n        return legal["actions"][0]\n    return {"place": []}\n'


def _record(name: str, response_time: float, exception: Any, **_: Any) -> None:
    TIMES.setdefault(name, []).append(response_time)
    if exception is not None:
        ERRORS[f"{name}: {str(exception)[:200]}"] += 1


def _started(**_: Any) -> None:
    WINDOW["start"] = time.time()


def _stopped(**_: Any) -> None:
    WINDOW["stop"] = time.time()


def _write(**_: Any) -> None:
    out = {"times_ms": TIMES, "errors": dict(ERRORS), "window": WINDOW}
    Path(os.environ["BACKROOM_LOAD_OUT"]).write_text(json.dumps(out))


# Registered by call: locust's add_listener is untyped, and as a decorator it would hide the types.
events.request.add_listener(_record)
events.test_start.add_listener(_started)
events.test_stop.add_listener(_stopped)
events.quitting.add_listener(_write)


class Player(HttpUser):
    """A bot author browsing the site and the API, now and then challenging or uploading."""

    wait_time = between(0.5, 1.5)

    def on_start(self) -> None:
        # One account per user (the bench makes as many as there are users).
        self.account = ACCOUNTS.pop() if ACCOUNTS else random.choice(PLAN["accounts"])
        self.client.headers["Authorization"] = f"Token {self.account['token']}"
        # A think time before the first request too: the users start together (locust spawns
        # them all at once), and in step their first requests were 50 at the same instant, a
        # queue for the two web workers that no later second of the run had. Those first
        # requests were all the requests over 250 ms (2026-12-04: 35 of 2,938, read p99 305 ms).
        self.wait()

    def _match(self) -> dict[str, Any]:
        return random.choice(PLAN["matches"])

    @task(4)
    def replay_state(self) -> None:
        match = self._match()
        step = random.randint(0, match["steps"])
        self.client.get(
            f"/api/matches/{match['id']}/state/?step={step}&view=public", name="read state"
        )

    @task(3)
    def events(self) -> None:
        match = self._match()
        after = random.randint(0, max(0, match["steps"] - 1))
        self.client.get(
            f"/api/matches/{match['id']}/events/?after={after}&limit=200", name="read events"
        )

    @task(2)
    def standings(self) -> None:
        ladder = random.choice(PLAN["ladders"])
        self.client.get(f"/api/ladders/{ladder}/ratings/", name="read standings")

    @task(3)
    def match_list(self) -> None:
        game = random.choice(["brexit", "brasilis"])
        self.client.get(f"/api/matches/?game={game}&limit=20", name="read match list")

    @task(3)
    def page(self) -> None:
        path = random.choice(
            [
                "/",
                "/matches/",
                f"/matches/{self._match()['id']}/",
                f"/ladders/{random.choice(PLAN['ladders'])}/",
            ]
        )
        self.client.get(path, name="read page")

    @task(1)
    def challenge(self) -> None:
        self.client.post(
            "/api/matches/",
            json={"game": "brexit", "seats": [{"builtin": "random"}] * 3},
            name="write challenge",
        )

    @task(1)
    def upload(self) -> None:
        self.client.post(
            f"/api/bots/{self.account['bot']}/versions/",
            files={"file": ("bot.py", BOT, "text/x-python")},
            name="write upload",
        )
