"""``manage.py bench load``: the web under load, and what that load costs the match workers.

In one run, on a throwaway database (``tournaments.bench.eventstore.bench_database``) and queues of
its own, with a gunicorn server and a Celery worker started as deploy/Procfile starts
them (2 web workers, 2 worker processes, loopback only):

1. a feeder keeps the worker's match queue full (unrated matches between built-ins);
2. *baseline*: matches finished per second with no web load;
3. *load*: locust's users (tournaments/bench/load/locustfile.py) read and write for the given
   time while the worker plays on;
4. *baseline* again, so that the two quiet windows stand either side of the loaded one
   (a drift of the shared machine shows as a gap between them).

The web's CPU in the loaded window is given whole (``web_cpu_ms_per_request``: every gunicorn
process, over every request) and attributed: each worker logs each request's own CPU
(``BACKROOM_REQUEST_CPU_LOG``, deploy/gunicorn.conf.py), from which come the CPU per read (GET
and HEAD: the target's "read mix", ``web_cpu_ms_per_read``), per write and per kind of request,
and what no request holds (the master, the accept loop, a worker's restart).

The drop is 1 - loaded / mean(baselines). Uploads are stored and their validation is
queued, but no worker serves that queue here: a validation is a sandboxed smoke match
whose cost depends on the upload, and the throughput must compare matches with matches.
"""

from __future__ import annotations

import json
import os
import re
import resource
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from celery import current_app
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import close_old_connections, connection
from django.utils import timezone

from config.queues import PLAY_MATCH
from replays import store
from tournaments.bench.children import Child, database_url, delete_queues
from tournaments.competition.models import Ladder
from tournaments.play import runner, services
from tournaments.play.models import BUILTIN_BOTS, Match, Seat
from tournaments.rating import rating_feed

LOCUSTFILE = Path(__file__).with_name("locustfile.py")
CHALLENGE_SEATS = [{"builtin": "random"}] * 3
QUEUED = 40
"""The feeder tops the match queue up to this many queued matches whenever it falls to half."""
SETUP_MATCHES = 4
"""Finished matches per game played in the bench's own process, for the replay reads."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(condition: Any, seconds: float, process: Child, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if process.process.poll() is not None or time.monotonic() > deadline:
            raise process.failure(f"bench load: {what}")
        time.sleep(0.2)


REQUEST_KINDS = [
    ("GET", re.compile(r"/api/matches/[^/]+/state/"), "read state"),
    ("GET", re.compile(r"/api/matches/[^/]+/events/"), "read events"),
    ("GET", re.compile(r"/api/ladders/[^/]+/ratings/"), "read standings"),
    ("GET", re.compile(r"/api/matches/"), "read match list"),
    ("POST", re.compile(r"/api/matches/"), "write challenge"),
    ("POST", re.compile(r"/api/bots/[^/]+/versions/"), "write upload"),
    ("GET", re.compile(r"/(matches/([^/]+/)?|ladders/[^/]+/)?"), "read page"),
]
"""The kind of a request the server logged, by method and path, named as the locustfile names it."""


def _request_kind(method: str, path: str) -> str:
    for asked, pattern, kind in REQUEST_KINDS:
        if method == asked and pattern.fullmatch(path):
            return kind
    return f"{'read' if method in ('GET', 'HEAD') else 'write'} other"


class _RequestCpu:
    """The web workers' per-request CPU lines (deploy/gunicorn.conf.py), read from a mark on."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.marks: dict[Path, int] = {}

    def mark(self) -> None:
        self.marks = {log: log.stat().st_size for log in self.folder.glob("*.log")}

    def lines(self) -> list[tuple[str, str, float]]:
        """(kind, status, cpu_ms) of each request logged since the mark, whole lines only."""
        found = []
        for log in sorted(self.folder.glob("*.log")):
            with log.open("rb") as handle:
                handle.seek(self.marks.get(log, 0))
                text = handle.read().decode()
            for line in text.splitlines(keepends=True):
                if line.endswith("\n"):
                    method, path, status, cpu_ms = line.split()
                    found.append((_request_kind(method, path), status, float(cpu_ms)))
        return found


def _attributed(lines: list[tuple[str, str, float]], web_cpu: float) -> dict[str, Any]:
    """The web's CPU of the window (``web_cpu`` seconds) per read, per write, per kind, and
    what no request's line holds."""
    by_kind: dict[str, list[float]] = {}
    for kind, _status, cpu_ms in lines:
        by_kind.setdefault(kind, []).append(cpu_ms)
    reads = [t for kind, ts in by_kind.items() if kind.startswith("read") for t in ts]
    writes = [t for kind, ts in by_kind.items() if kind.startswith("write") for t in ts]
    attributed = sum(reads) + sum(writes)
    unattributed = 1000 * web_cpu - attributed
    return {
        "web_cpu_ms_per_read": round(sum(reads) / len(reads), 2) if reads else None,
        "web_cpu_ms_per_write": round(sum(writes) / len(writes), 2) if writes else None,
        "web_cpu_attributed_s": round(attributed / 1000, 2),
        "web_cpu_unattributed_s": round(unattributed / 1000, 2),
        "web_cpu_unattributed_ms_per_request": round(unattributed / max(1, len(lines)), 2),
        "web_cpu_by_request": {
            kind: {
                "requests": len(ts),
                "cpu_ms_mean": round(sum(ts) / len(ts), 2),
                "cpu_ms_p50": round(statistics.median(ts), 2),
                "cpu_s": round(sum(ts) / 1000, 2),
            }
            for kind, ts in sorted(by_kind.items())
        },
    }


def _ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310 (a loopback http URL of our own)
            return int(response.status) == 200
    except OSError:
        return False


def _environment(queues: tuple[str, str], run: str) -> dict[str, str]:
    """The children's settings: this bench's database, queues and cache keys; DEBUG off."""
    default_queue, match_queue = queues
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": os.environ.get("DJANGO_SETTINGS_MODULE", "config.settings.local"),
        "DATABASE_URL": database_url(),
        "DEBUG": "false",
        # Base settings and test settings name their queues and cache prefix apart.
        "CELERY_DEFAULT_QUEUE": default_queue,
        "MATCH_QUEUE": match_queue,
        "TEST_CELERY_QUEUE": default_queue,
        "TEST_MATCH_QUEUE": match_queue,
        # Fresh user ids in a fresh database would meet old runs' throttle counts otherwise.
        "CACHE_KEY_PREFIX": run,
        "TEST_CACHE_PREFIX": run,
    }


@contextmanager
def _queues(run: str) -> Iterator[tuple[str, str]]:
    """Queues of this run only (a `make up` worker must not take its matches), deleted after.

    The children are configured with them (``_environment``); this process sends its own
    matches there by name, its configured routes being fixed at start.
    """
    default_queue, match_queue = f"{run}-celery", f"{run}-matches"
    try:
        yield default_queue, match_queue
    finally:
        delete_queues([default_queue, match_queue])


def _play_here(game: str, seed: int, ladder: Ladder | None = None) -> Match:
    match = Match.objects.create(
        game=game, seed=seed, options={}, rated=ladder is not None, ladder=ladder
    )
    Seat.objects.bulk_create(Seat(match=match, number=n, builtin="random") for n in range(3))
    runner.run_match(match.id)
    return match


def _setup(run: str, users: int, plan_path: Path) -> Any:
    """Accounts with tokens and a bot each, finished matches to replay, ladders with standings.

    Names carry the run's: with --in-place a second run meets the first one's accounts.
    """
    user_model = get_user_model()
    accounts = []
    for n in range(users):
        user, token = services.create_account(
            username=f"{run}-{n}", password=secrets.token_urlsafe(16)
        )
        bot = services.create_bot(owner=user, name=f"load-bot-{n}", game="brexit")
        accounts.append({"token": token, "bot": bot.pk})
    ladders = []
    for game in ("brexit", "brasilis"):
        ladder = Ladder.objects.create(
            name=f"{game} {run}", game=game, seats=3, builtins=list(BUILTIN_BOTS)
        )
        ladders.append(ladder.pk)
        for seed in range(SETUP_MATCHES):
            _play_here(game, seed, ladder)
    rating_feed.consume()
    matches = [
        {"id": str(m.pk), "steps": store.current_version(m.pk)}
        for m in Match.objects.filter(status=Match.Status.FINISHED)[:200]
    ]
    plan_path.write_text(json.dumps({"accounts": accounts, "matches": matches, "ladders": ladders}))
    feeder, _ = user_model.objects.get_or_create(username=f"{run}-feeder")
    return feeder


class _Feeder(threading.Thread):
    """Keeps the worker busy: tops the match queue up whenever half of it has been played."""

    def __init__(self, user: Any, queue: str) -> None:
        super().__init__(daemon=True)
        self.user, self.queue, self.stopping, self.error = user, queue, threading.Event(), ""

    def run(self) -> None:
        try:
            while not self.stopping.wait(0.2):
                queued = Match.objects.filter(status=Match.Status.QUEUED).count()
                if queued <= QUEUED // 2:
                    for _ in range(QUEUED - queued):
                        match = services.create_challenge(
                            user=self.user, game="brexit", seats=CHALLENGE_SEATS, queue=False
                        )
                        # Declared by the worker already, with its settings' arguments (the
                        # test settings' x-expires): declaring it again without them would fail.
                        current_app.send_task(
                            PLAY_MATCH, (str(match.pk),), queue=self.queue, declare=[]
                        )
        except Exception as exc:  # reported in the figures: the throughput would be wrong
            self.error = repr(exc)
        finally:
            close_old_connections()
            connection.close()


def _finished_between(start: datetime, end: datetime) -> int:
    return Match.objects.filter(
        status=Match.Status.FINISHED, finished_at__gte=start, finished_at__lt=end
    ).count()


def _children_cpu_seconds() -> float:
    """CPU time of this process' children that have ended and been waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cpu_seconds(group: int) -> float:
    """CPU time (user + system) used so far by the live processes of process group ``group``.

    Read from /proc (Linux): unlike latencies, CPU per request or per match hardly moves
    when other work shares the machine, so it tells what the platform itself costs.
    """
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        # After the command: state, ppid, pgrp, ..., utime (14th field), stime (15th).
        if int(fields[2]) == group:
            total += int(fields[11]) + int(fields[12])
    return total / tick


def _named_cpu_seconds(names: tuple[str, ...]) -> float:
    """CPU time used so far by the processes whose command name is one of ``names`` (the
    shared services: Postgres, RabbitMQ's runtime, Redis), ended ones included: a backend
    that ended (a connection closed at CONN_MAX_AGE) is counted in its parent's children's
    time, which is read from the service's top process."""
    tick = os.sysconf("SC_CLK_TCK")
    found: dict[int, tuple[int, list[str]]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            name, rest = stat.read_text().split(" (", 1)[1].rsplit(")", 1)
        except (OSError, IndexError, ValueError):
            continue
        if name.startswith(names):
            fields = rest.split()
            found[int(stat.parent.name)] = (int(fields[1]), fields)
    total = 0
    for _pid, (parent, fields) in found.items():
        total += int(fields[11]) + int(fields[12])  # utime, stime
        if parent not in found:  # the service's top process: its reaped children's time too
            total += int(fields[13]) + int(fields[14])  # cutime, cstime
    return total / tick


def _cores_used(web: Child, worker: Child) -> dict[str, float]:
    """CPU seconds used so far by the web, the worker, each shared service and this process,
    with the time they were read (``at``)."""
    return {
        "at": time.monotonic(),
        "web": _cpu_seconds(web.process.pid),
        "worker": _cpu_seconds(worker.process.pid),
        **{name: _named_cpu_seconds(names) for name, names in SERVICES.items()},
        "bench_feeder": time.process_time(),
    }


def _cores_busy(start: dict[str, float], end: dict[str, float]) -> dict[str, float]:
    """Cores each kept busy between two readings of ``_cores_used``."""
    wall = end["at"] - start["at"]
    return {
        "seconds": round(wall, 1),
        **{k: round((end[k] - start[k]) / wall, 2) for k in start if k != "at"},
    }


SERVICES = {"postgres": ("postgres",), "rabbitmq": ("beam.smp",), "redis": ("redis-server",)}
"""The shared services whose CPU in the loaded window the bench reports, by command name."""


def _throughput(seconds: float) -> tuple[float, int]:
    start = timezone.now()
    time.sleep(seconds)
    end = timezone.now()
    done = _finished_between(start, end)
    return done / (end - start).total_seconds(), done


def _percentiles(times: list[float]) -> dict[str, float | None]:
    if len(times) < 2:
        only = round(times[0], 1) if times else None
        return {"p50": only, "p95": only, "p99": only}
    cuts = statistics.quantiles(times, n=100, method="inclusive")
    return {"p50": round(cuts[49], 1), "p95": round(cuts[94], 1), "p99": round(cuts[98], 1)}


def _run_locust(
    base: str, users: int, seconds: float, plan: Path, out: Path, env: dict[str, str]
) -> dict[str, Any]:
    locust = shutil.which("locust", path=str(Path(sys.executable).parent))
    if locust is None:
        raise ImportError("locust is not installed (the dev extra: make install)")
    argv = [
        locust, "-f", str(LOCUSTFILE), "--headless", "--host", base,
        "--users", str(users), "--spawn-rate", str(users), "--run-time", f"{max(1, round(seconds))}s",
        "--stop-timeout", "10", "--only-summary", "--loglevel", "WARNING", "--exit-code-on-error", "0",
    ]  # fmt: skip
    process = Child(
        "locust", argv, {**env, "BACKROOM_LOAD_PLAN": str(plan), "BACKROOM_LOAD_OUT": str(out)}
    )
    if process.process.wait(seconds + 120) != 0 or not out.exists():
        raise process.failure("bench load: locust failed")
    return json.loads(out.read_text())  # type: ignore[no-any-return]


def bench_load(
    users: int = 50,
    seconds: float = 60.0,
    baseline_seconds: float = 20.0,
    web_threads: int = 1,
    web_workers: int = 2,
) -> dict[str, Any]:
    run = f"load-{secrets.token_hex(4)}"
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    bin_dir = Path(sys.executable).parent
    with ExitStack() as stack:
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="backroom-load-")))
        queues = stack.enter_context(_queues(run))
        env = _environment(queues, run)
        feeder_user = _setup(run, users, work / "plan.json")
        # Whatever is still queued at the end lost its queue with the run: cancel it.
        stack.callback(
            lambda: services.cancel_queued_matches(
                matches=Match.objects.filter(created_by__username__startswith=f"{run}-"),
                reason="bench load ended before this match was played",
            )
        )
        if "Manifest" in settings.STORAGES["staticfiles"]["BACKEND"]:
            # DEBUG off, as in production: the pages need the collected static files' manifest.
            subprocess.run([sys.executable, "manage.py", "collectstatic", "--no-input", "-v0"], cwd=settings.BASE_DIR, env=env, check=True)  # fmt: skip
        # What deploy/Procfile runs (its gunicorn settings, 2 web workers, 2 worker processes),
        # this run's queue only, and a control socket of its own. Each request's CPU is logged
        # when a worker serves one at a time (with threads a line would hold its siblings').
        cpu_log = work / "request-cpu"
        cpu_log.mkdir()
        web_env = {
            **env,
            "GUNICORN_BIND": f"127.0.0.1:{port}",
            "WEB_CONCURRENCY": str(web_workers),
            "GUNICORN_CONTROL_SOCKET": str(work / "gunicorn.ctl"),
            **({"BACKROOM_REQUEST_CPU_LOG": str(cpu_log)} if web_threads == 1 else {}),
        }
        web = Child("gunicorn", [
            str(bin_dir / "gunicorn"), "--config", "deploy/gunicorn.conf.py", "--threads", str(web_threads),
        ], web_env)  # fmt: skip
        request_cpu = _RequestCpu(cpu_log)
        stack.callback(web.stop)
        worker = Child("worker", [
            str(bin_dir / "celery"), "-A", "config", "worker", "--hostname", f"{run}@%h",
            "--loglevel", "INFO", "--concurrency", "2", "--queues", queues[1],
            "--without-mingle", "--without-gossip",
        ], env)  # fmt: skip
        stack.callback(worker.stop)
        _wait(lambda: _ok(f"{base}/api/ladders/"), 60, web, "the web server did not answer")
        _wait(lambda: worker.said(" ready."), 60, worker, "the worker did not start")
        feeder = _Feeder(feeder_user, queues[1])
        feeder.start()
        stack.callback(feeder.join, 10)
        stack.callback(feeder.stopping.set)
        # Warm: the worker has played a match and the web workers have served a page.
        warm = timezone.now()
        _wait(
            lambda: _finished_between(warm, timezone.now()) > 0 or bool(feeder.error),
            60,
            worker,
            "no match finished",
        )
        if feeder.error:
            raise RuntimeError(f"bench load: the feeder failed: {feeder.error}")
        quiet_start = _cores_used(web, worker)
        before, before_n = _throughput(baseline_seconds)
        quiet_cores = _cores_busy(quiet_start, _cores_used(web, worker))
        web_cpu, worker_cpu = _cpu_seconds(web.process.pid), _cpu_seconds(worker.process.pid)
        services_cpu = {name: _named_cpu_seconds(c) for name, c in SERVICES.items()}
        own_cpu, children_cpu = time.process_time(), _children_cpu_seconds()
        request_cpu.mark()
        wall = time.monotonic()
        measured = _run_locust(base, users, seconds, work / "plan.json", work / "out.json", env)
        answered = sum(len(ts) for ts in measured["times_ms"].values())
        if web_threads == 1:
            # A worker logs a request after its answer is sent: wait for the last ones' lines
            # (a request that failed without an answer may have none, hence the deadline).
            deadline = time.monotonic() + 5
            while len(request_cpu.lines()) < answered and time.monotonic() < deadline:
                time.sleep(0.05)
        # Locust is the only child that ends in the window: the children's CPU is its own.
        locust_cpu = _children_cpu_seconds() - children_cpu
        own_cpu = time.process_time() - own_cpu
        wall = time.monotonic() - wall
        services_cpu = {
            name: _named_cpu_seconds(SERVICES[name]) - used for name, used in services_cpu.items()
        }
        # The users' own window: locust's start-up and shut-down are not load.
        start, end = (
            datetime.fromtimestamp(measured["window"][edge], tz=UTC) for edge in ("start", "stop")
        )
        loaded_n = _finished_between(start, end)
        web_cpu = _cpu_seconds(web.process.pid) - web_cpu
        request_lines = request_cpu.lines()
        worker_cpu = _cpu_seconds(worker.process.pid) - worker_cpu
        loaded = loaded_n / (end - start).total_seconds()
        after, after_n = _throughput(baseline_seconds)
    times: dict[str, list[float]] = measured["times_ms"]
    reads = [t for name, ts in times.items() if name.startswith("read") for t in ts]
    writes = [t for name, ts in times.items() if name.startswith("write") for t in ts]
    quiet = (before + after) / 2
    return {
        "bench": "load",
        "users": users,
        "seconds": seconds,
        "think_time_s": [0.5, 1.5],
        "web": f"gunicorn, {web_workers} workers x {web_threads} thread(s)",
        "requests": len(reads) + len(writes),
        "reads": len(reads),
        "writes": len(writes),
        "errors": sum(measured["errors"].values()),
        "error_kinds": measured["errors"],
        "read_ms": _percentiles(reads),
        "write_ms": _percentiles(writes),
        "by_request": {
            name: {"requests": len(ts), **_percentiles(ts)} for name, ts in sorted(times.items())
        },
        "matches_per_s": {
            "baseline_before": round(before, 2),
            "under_load": round(loaded, 2),
            "baseline_after": round(after, 2),
        },
        # What the work costs in CPU, steadier than any time on a shared machine: with C cores
        # free for the platform, the workers lose web_cpu_s / (C * loaded seconds) of theirs.
        "cpu_under_load": {
            "web_cpu_s": round(web_cpu, 2),
            # Every gunicorn process's CPU over every request, reads and writes alike.
            "web_cpu_ms_per_request": round(1000 * web_cpu / max(1, len(reads) + len(writes)), 1),
            # That CPU attributed to the requests that cost it (None with threads: not exact).
            **(
                _attributed(request_lines, web_cpu)
                if web_threads == 1
                else dict.fromkeys(("web_cpu_ms_per_read", "web_cpu_ms_per_write"))
            ),
            "worker_cpu_s": round(worker_cpu, 2),
            # None when no match finished in the window (a machine too busy for the load).
            "worker_cpu_ms_per_match": (
                round(1000 * worker_cpu / loaded_n, 1) if loaded_n else None
            ),
        },
        # Where the machine's cores went while locust ran (its start-up and shut-down included):
        # the platform's web and worker, the shared services, the load generator and this bench.
        "cores_busy_quiet": quiet_cores,
        "cores_busy_under_load": {
            "seconds": round(wall, 1),
            "web": round(web_cpu / wall, 2),
            "worker": round(worker_cpu / wall, 2),
            **{name: round(used / wall, 2) for name, used in services_cpu.items()},
            "locust": round(locust_cpu / wall, 2),
            "bench_feeder": round(own_cpu / wall, 2),
            "cores": os.cpu_count(),
        },
        "matches_finished": {
            "baseline_before": before_n,
            "under_load": loaded_n,
            "baseline_after": after_n,
        },
        "throughput_drop": round(1 - loaded / quiet, 3) if quiet else None,
        "feeder_error": feeder.error or None,
        "targets": {
            "errors": 0,
            "read_p99_ms": 300,
            "throughput_drop": 0.2,
            "web_cpu_ms_per_read": 5,
        },
    }
