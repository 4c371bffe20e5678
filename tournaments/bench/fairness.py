"""``manage.py bench fairness``: does one account's flood of slow matches hold another's back?

Real Celery workers (``workers`` of them, solo pool: one process each) on queues of this run
only, and the real broker; the matches are made by the services, as the API makes them, and
sent by them (their routes pointed at this run's queues). The flood, by ``kind``:

* ``challenges``: account ``flooder`` challenges ``flood`` times with its slow bot (sandboxed,
  ``bot_sleep`` seconds a decision): the platform accepts as many as an account may have queued
  or running (tournaments/play/allowance.py) and refuses the rest, counted;
* ``uploads``: two accounts of one address keep as many uploads of the slow bot pending as they
  may, ``flood`` in all, topped up as each is validated: each upload's smoke match is urgent
  work, which goes ahead of challenges (the attack of issue 21's fourth review).

Every worker must be able to run the flood's sandboxed bots (its start check says so; one whose
check failed is replaced). Once every worker is busy with the flood, account ``other`` challenges
once; if the flood is played out first, the bench fails at once, saying what it saw. Measured from the
match rows (the database's clock):

* ``overtaken_by``: the flood's matches that started after the other challenge was created
  and before it started. Target: at most ``workers`` (the matches already running when it
  was made); first come, first served, every queued match of the flood would.
* ``waited_seconds``: from the other challenge's creation to its start.

Then the flood's queued matches are cancelled and the workers stopped: what is measured is
over once the other challenge has started.
"""

from __future__ import annotations

import statistics
import time
import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any, Protocol

from django.contrib.auth import get_user_model
from django.db.models import QuerySet

from tournaments.bench.children import delete_queues, routed_to
from tournaments.bench.scale import BenchWorker, worker_env
from tournaments.play import services
from tournaments.play.allowance import OverLimit
from tournaments.play.models import AccountOrigin, BotVersion, Match

SLOW_BOT = """import time

def act(observation, legal):
    time.sleep({sleep})
    if legal["actions"]:
        return legal["actions"][0]
    return {{"place": []}}
"""


def _slow_version(owner: Any, sleep: float) -> BotVersion:
    source = SLOW_BOT.format(sleep=sleep).encode()
    return services.local_version(owner=owner, game="brexit", filename="slow.py", data=source)


def _challenge(user: Any, version: BotVersion) -> Match:
    seats: list[dict[str, Any]] = [
        {"bot_version": version.pk},
        {"builtin": "random"},
        {"builtin": "random"},
    ]
    return services.create_challenge(user=user, game="brexit", seats=seats)


BUSY_SECONDS = 180.0
"""A bound on failing only: the flood's first matches start seconds after it is made."""
WORKER_TRIES = 3
UNSANDBOXED = "sandbox unavailable"
"""What a worker logs at start when it cannot run uploaded bots (tournaments/tasks.py)."""


def _failure(what: str, workers: list[BenchWorker], seen: str) -> RuntimeError:
    said = "".join(f"\n--- {w.name} said:\n{''.join(w.lines[-30:])}" for w in workers)
    return RuntimeError(f"bench fairness: {what}; saw {seen}{said}")


def _wait(
    condition: Callable[[], bool],
    seconds: float,
    what: str,
    workers: list[BenchWorker],
    seen: Callable[[], str],
    hopeless: Callable[[], bool] = lambda: False,
) -> None:
    """Wait for ``condition``; past ``seconds``, or as soon as ``hopeless`` says it can no
    longer hold, fail with what ``seen`` describes and what the workers said."""
    deadline = time.monotonic() + seconds
    while not condition():
        if hopeless():
            raise _failure(f"{what} can no longer happen", workers, seen())
        if time.monotonic() > deadline:
            raise _failure(f"timed out after {seconds:.0f} s waiting for {what}", workers, seen())
        time.sleep(0.05)


def _sandboxing_worker(name: str, queues: list[str], env: dict[str, str]) -> BenchWorker:
    """A started worker that can run uploaded bots, as every match of the flood needs.

    A worker checks at its start with a real sandboxed bot that must answer within seconds
    (games/sandbox/readiness.py): on a loaded host the check can time out, and that worker then
    takes none of the flood (its wake-ups find nothing it may play) until its next need a
    minute later checks again (``FAILED_KEPT_SECONDS``), a long part of the bounded wait for
    the workers to be busy. A fresh worker checks again at once."""
    refused = []
    for attempt in range(WORKER_TRIES):
        worker = BenchWorker(f"{name}-{attempt}", queues, env)
        worker.wait_ready(120)  # its sandbox check is logged before its " ready."
        unsandboxed = [line.strip() for line in worker.lines if UNSANDBOXED in line]
        if not unsandboxed:
            return worker
        worker.stop()
        refused += unsandboxed
    raise RuntimeError(
        f"bench fairness: {WORKER_TRIES} workers in turn could not run uploaded bots: {refused}"
    )


class _ChallengeFlood:
    """One account's ``flood`` challenges of its slow bot, made at once (the caps refuse some)."""

    kind = "challenges"

    def __init__(self, tag: str, flood: int, bot_sleep: float) -> None:
        self.account = get_user_model().objects.create_user(username=f"fair-{tag}-flooder")
        self.version = _slow_version(self.account, bot_sleep)
        self.requested, self.refused = flood, 0
        self.made: list[uuid.UUID] = []

    def start(self) -> None:
        for _ in range(self.requested):
            try:
                self.made.append(_challenge(self.account, self.version).pk)
            except OverLimit:
                self.refused += 1

    def top_up(self) -> None:
        """Challenges are made once, at the start."""

    def complete(self) -> bool:
        return True


class _UploadFlood:
    """Two accounts of one address, each keeping as many uploads of a slow bot pending as it
    may (every upload's smoke match is urgent work), topped up until the measure is over."""

    kind = "uploads"

    def __init__(self, tag: str, flood: int, bot_sleep: float) -> None:
        users = get_user_model().objects
        accounts = [users.create_user(username=f"fair-{tag}-uploader{n}") for n in range(2)]
        for account in accounts:
            AccountOrigin.objects.create(user=account, address="198.51.100.66")
        self.bots = [
            services.create_bot(owner=a, game="brexit", name=f"slow-{tag}") for a in accounts
        ]
        self.bot_sleep = bot_sleep
        self.requested, self.refused = flood, 0
        self.made: list[uuid.UUID] = []

    def start(self) -> None:
        self.top_up()

    def top_up(self) -> None:
        for bot in self.bots:
            while len(self.made) + self.refused < self.requested:
                # Each upload new bytes: the same file again would be the same version.
                source = SLOW_BOT.format(sleep=self.bot_sleep) + f"# upload {len(self.made)}\n"
                try:
                    version, _ = services.upload_version(
                        bot=bot, filename="slow.py", data=source.encode()
                    )
                except OverLimit:
                    break  # as many pending as it may: again once one is validated
                # The smoke match the upload queued (smoke_match_for would make another
                # if a worker had validated the version already).
                smoke = Match.objects.filter(validation_of=version).earliest("created_at")
                self.made.append(smoke.pk)

    def complete(self) -> bool:
        return len(self.made) + self.refused >= self.requested


class _Flood(Protocol):
    kind: str
    made: list[uuid.UUID]
    """The flood's matches (challenges, or smoke matches)."""
    refused: int

    def start(self) -> None: ...

    def top_up(self) -> None: ...

    def complete(self) -> bool:
        """Whether the flood has made all it will make."""
        ...


FLOODS: dict[str, Callable[[str, int, float], _Flood]] = {
    "challenges": _ChallengeFlood,
    "uploads": _UploadFlood,
}


def bench_fairness(
    *,
    workers: int = 2,
    flood: int = 30,
    bot_sleep: float = 0.2,
    kind: str = "challenges",
    timeout: float = 600.0,
) -> dict[str, Any]:
    tag = uuid.uuid4().hex[:8]
    names = ("celery", "matches", "validation", "people", "ratings")
    queues = {q: f"bench-fair-{tag}-{q}" for q in names}
    other = get_user_model().objects.create_user(username=f"fair-{tag}-other")
    mine_version = _slow_version(other, bot_sleep)
    flooder = FLOODS[kind](tag, flood, bot_sleep)
    env = worker_env(queues)
    # The ratings each finished match asks for wait on their own queue, read by nobody here.
    consumed = [queues[q] for q in ("celery", "matches", "validation", "people")]
    pool: list[BenchWorker] = []
    try:
        for n in range(workers):
            pool.append(_sandboxing_worker(f"fair-{tag}-{n}", consumed, env))
        with routed_to(queues):
            flooder.start()
            busy = min(workers, len(flooder.made))

            def flood_now() -> QuerySet[Match]:
                return Match.objects.filter(id__in=flooder.made)  # as it is now, topped up

            def seen() -> str:
                statuses = Counter(flood_now().values_list("status", flat=True))
                return f"the flood's {len(flooder.made)} matches {dict(statuses)}"

            def all_busy() -> bool:
                flooder.top_up()  # a decided upload is replaced, as all along the measure
                return flood_now().filter(status=Match.Status.RUNNING).count() >= busy

            def played_out() -> bool:
                """Nothing of the flood left to keep a worker busy, and nothing more to come."""
                waiting = (Match.Status.QUEUED, Match.Status.RUNNING)
                return flooder.complete() and not flood_now().filter(status__in=waiting).exists()

            _wait(
                all_busy,
                min(timeout, BUSY_SECONDS),
                "the workers busy with the flood",
                pool,
                seen,
                played_out,
            )
            victim = _challenge(other, mine_version)

            def started() -> bool:
                flooder.top_up()
                return Match.objects.filter(id=victim.pk, started_at__isnull=False).exists()

            _wait(started, timeout, "the other account's challenge to start", pool, seen)
            services.cancel_queued_matches(
                matches=Match.objects.filter(id__in=flooder.made), reason="bench fairness is over"
            )
    finally:
        for worker in pool:
            worker.stop()
        delete_queues(list(queues.values()))
    victim.refresh_from_db()
    assert victim.started_at is not None
    flood_ids = flooder.made
    times = list(Match.objects.filter(id__in=flood_ids).values_list("started_at", "finished_at"))
    overtaken = [s for s, _ in times if s is not None and victim.created_at < s < victim.started_at]
    running_then = [
        s
        for s, f in times
        if s is not None and s <= victim.created_at and (f is None or f > victim.created_at)
    ]
    played = [(f - s).total_seconds() for s, f in times if s is not None and f is not None]
    return {
        "bench": "fairness",
        "kind": kind,
        "workers": workers,
        "pool": "celery worker --pool solo, one process each; prefetch 1, late acks",
        "bot": f"sandboxed, {bot_sleep} s a decision, in seat 0 of a 3-seat Brexit match",
        "flood_requested": flood,
        "flood_accepted": len(flood_ids),
        "flood_refused": flooder.refused,
        "running_when_created": len(running_then),
        "overtaken_by": len(overtaken),
        "target_overtaken_by": f"<= {workers} (workers)",
        "waited_seconds": round((victim.started_at - victim.created_at).total_seconds(), 2),
        "flood_match_seconds_median": round(statistics.median(played), 2) if played else None,
        "victim_match": str(victim.pk),
        "flood_matches": [str(m) for m in flood_ids],
        "queues": sorted(queues.values()),  # this run's, deleted from the broker after
    }
