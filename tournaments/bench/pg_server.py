"""``manage.py bench pgserver``: the whole Postgres server's CPU per played ladder match.

The issue's figure ("about 24 ms of Postgres CPU per stored Brexit match") counted every
Postgres process, not one backend: the web's, the worker's, the ratings consumer's, and the
server's own (WAL writer, checkpointer, background writer, autovacuum). On a server other
suites share, those background processes work for everybody, so this bench starts a Postgres
cluster of its own (initdb, a free port, the machine's binaries), migrates a database there and
points this process and its children at it: every process of that cluster is the bench's.

Each round, in the production way: ``services.create_rated_match`` queues N ladder matches of
four built-in ``random`` bots (Brexit), one Celery worker (solo pool) consuming the matches'
and the ratings' queues plays them (the pick, the runner's COPY of the events with their
triggers, the worker time) and, woken by each finished match, rates them (the feed consumer).
The round ends when every match is finished and rated. The CPU is the sum, over the cluster's
processes, of user + system time (/proc/<pid>/stat: the postmaster's own with its reaped
children's, and each live child's), from before the first match is created to the last rating.
"""

from __future__ import annotations

import glob
import os
import secrets
import shutil
import statistics
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.db import connection

from tournaments.bench.backend import backend_pid
from tournaments.bench.children import delete_queues, routed_to
from tournaments.bench.eventstore import bench_database
from tournaments.bench.scale import BenchWorker, worker_env

GAME = "brexit"
PLAYERS = ["builtin:random", "builtin:greedy", "builtin:cautious", "builtin:bold"]
"""Four players, not one bot four times: a player seated against itself is not rated."""
POLL_SECONDS = 1.0
"""How often the bench asks whether the round is over: its own queries are counted too, so
seldom (one count a second is about 0.1% of a round's CPU)."""
TICKS = os.sysconf("SC_CLK_TCK")


def _as_postgres() -> list[str]:
    """initdb and the server refuse to run as root."""
    return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def own_cluster(statements: bool = False) -> Iterator[tuple[int, int, Path]]:
    """A Postgres cluster of the bench's own: its port, its postmaster's pid and its log;
    removed after."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    pg_ctl = found[-1] if found else shutil.which("pg_ctl")
    if not pg_ctl:
        raise RuntimeError("bench pgserver: PostgreSQL's pg_ctl is not installed here")
    bindir = Path(pg_ctl).parent
    root = Path(tempfile.mkdtemp(prefix="bench-pgserver-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
    data, port = root / "data", _free_port()
    made = [str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync"]
    subprocess.run([*_as_postgres(), *made], check=True, capture_output=True)  # noqa: S603
    # fsync off: a disk shared with other work would make the commits' waits vary, and a
    # wait is not CPU; everything else is initdb's defaults, as a fresh server's.
    # log_connections: the bench counts the connections a round opens (a backend's start is
    # CPU, and its prepared statements are planned again).
    options = (
        f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off -c log_connections=on"
    )
    if statements:  # a profile's run only: the extension's bookkeeping costs CPU too
        options += " -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all"
    start = [pg_ctl, "-D", str(data), "-o", options, "-l", str(root / "log"), "-w", "start"]
    subprocess.run([*_as_postgres(), *start], check=True, capture_output=True)  # noqa: S603
    try:
        postmaster = int((data / "postmaster.pid").read_text().split()[0])
        yield port, postmaster, root / "log"
    finally:
        stop = [pg_ctl, "-D", str(data), "-m", "fast", "-w", "stop"]
        subprocess.run([*_as_postgres(), *stop], check=False, capture_output=True)  # noqa: S603
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def on_cluster(port: int) -> Iterator[str]:
    """This process's connection on the cluster at ``port``, in a migrated ``<name>_bench``
    database (dropped after), and put back where it was."""
    saved = {key: connection.settings_dict[key] for key in ("HOST", "PORT", "USER", "PASSWORD")}
    connection.close()
    connection.settings_dict.update(HOST="127.0.0.1", PORT=str(port), USER="postgres", PASSWORD="")
    try:
        with bench_database() as name:
            yield name
    finally:
        connection.close()
        connection.settings_dict.update(saved)


def _stat(pid: int | str) -> list[str]:
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rindex(")") + 2 :].split()  # after the command name, which may hold spaces


def _kind(pid: str, own_backend: int) -> str:
    """What a child of the postmaster is: this process's backend, another backend (the
    worker's), or the background process its title names (walwriter, checkpointer, ...)."""
    if int(pid) == own_backend:
        return "bench_backend"
    title = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    if "(" in title or "[local]" in title:  # "postgres: <user> <db> <client>(<port>) <state>"
        return "worker_backends"
    return title.removeprefix("postgres: ").split(" ")[0] or "other"


def cluster_cpu_seconds(postmaster: int, own_backend: int = 0) -> dict[str, float]:
    """User + system CPU of every process of the cluster so far, by kind: the postmaster's own,
    its ended children's (cutime, cstime: autovacuum workers come and go), each live child's."""
    fields = _stat(postmaster)  # state is fields[0]; utime, stime, cutime, cstime: [11:15]
    ticks = {
        "postmaster": int(fields[11]) + int(fields[12]),
        "ended": int(fields[13]) + int(fields[14]),
    }
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            child = _stat(stat.parent.name)
            if int(child[1]) != postmaster:
                continue
            kind = _kind(stat.parent.name, own_backend)
        except (OSError, ValueError):  # it ended meanwhile
            continue
        ticks[kind] = ticks.get(kind, 0) + int(child[11]) + int(child[12])
    return {kind: n / TICKS for kind, n in ticks.items()}


def _updates() -> dict[str, dict[str, int]]:
    """Each hot table's updates and how many were HOT (no index entry written): as
    pg_stat_user_tables has them when the rounds end (a backend reports within a second)."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT relname, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables"
            " WHERE relname IN ('tournaments_match', 'tournaments_seat', 'tournaments_rating',"
            " 'tournaments_workertime', 'replays_feed_checkpoint') ORDER BY relname"
        )
        return {name: {"updates": upd, "hot": hot} for name, upd, hot in cur.fetchall()}


def _connections(log: Path) -> int:
    """Connections the cluster has let in so far (its log's lines, log_connections)."""
    return log.read_bytes().count(b"connection authorized")


def _round(ladder_id: int, matches: int, timeout: float) -> tuple[list[uuid.UUID], float]:
    """N ladder matches queued, played and rated; their ids and the seconds it took."""
    from tournaments.play import services
    from tournaments.play.models import Match
    from tournaments.rating.models import RatingHistory

    start = time.monotonic()
    ids = [
        services.create_rated_match(
            game=GAME, players=PLAYERS, seed=secrets.randbits(63), ladder_id=ladder_id
        ).id
        for _ in range(matches)
    ]
    finished = Match.objects.filter(id__in=ids, status=Match.Status.FINISHED)
    rated = RatingHistory.objects.filter(match_id__in=ids)
    while not (finished.count() == matches and rated.count() == matches * len(PLAYERS)):
        if time.monotonic() - start > timeout:
            raise RuntimeError(
                f"bench pgserver: {matches - finished.count()} matches unfinished, "
                f"{matches * len(PLAYERS) - rated.count()} ratings missing"
            )
        time.sleep(POLL_SECONDS)
    return ids, time.monotonic() - start


def _top_statements(limit: int = 25) -> list[dict[str, Any]]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT round(total_exec_time::numeric, 1), round(total_plan_time::numeric, 1), calls,"
            " left(regexp_replace(query, '\\s+', ' ', 'g'), 160)"
            " FROM pg_stat_statements ORDER BY total_exec_time + total_plan_time DESC LIMIT %s",
            [limit],
        )
        return [
            {"exec_ms": float(e), "plan_ms": float(p), "calls": c, "query": q}
            for e, p, c, q in cur.fetchall()
        ]


def bench_pg_server(
    matches: int = 40, rounds: int = 3, timeout: float = 600.0, statements: bool = False
) -> dict[str, Any]:
    """The whole server's CPU per played, rated Brexit ladder match: median of the rounds'."""
    from tournaments.competition.models import Ladder
    from tournaments.play.models import BUILTIN_BOTS, Match

    tag = uuid.uuid4().hex[:8]
    names = ("celery", "matches", "validation", "people", "ratings")
    queues = {q: f"bench-pgserver-{tag}-{q}" for q in names}
    round_ms: list[float] = []
    kinds: dict[str, float] = {}
    round_seconds: list[float] = []
    played: list[uuid.UUID] = []
    top: list[dict[str, Any]] = []
    connections = 0
    with own_cluster(statements) as (port, postmaster, log), on_cluster(port) as database:
        if statements:
            with connection.cursor() as cur:
                cur.execute("CREATE EXTENSION pg_stat_statements")
        ladder = Ladder.objects.create(
            name=f"pgserver {tag}", game=GAME, seats=len(PLAYERS), builtins=list(BUILTIN_BOTS)
        )
        worker = BenchWorker(
            f"pgserver-{tag}",
            [queues["matches"], queues["ratings"], queues["celery"]],
            worker_env(queues),
        )
        try:
            worker.wait_ready(120)
            with routed_to(queues):
                _round(ladder.pk, 4, timeout)  # warm: imports, plans, caches, first ratings
                own = backend_pid()
                for _ in range(rounds):
                    before = cluster_cpu_seconds(postmaster, own)
                    opened = _connections(log)
                    ids, seconds = _round(ladder.pk, matches, timeout)
                    after = cluster_cpu_seconds(postmaster, own)
                    connections += _connections(log) - opened
                    spent = {k: after[k] - before.get(k, 0.0) for k in after}
                    for kind, cpu in spent.items():
                        kinds[kind] = kinds.get(kind, 0.0) + cpu
                    round_ms.append(1000 * sum(spent.values()) / matches)
                    round_seconds.append(seconds)
                    played.extend(ids)
        finally:
            worker.stop()
            delete_queues(list(queues.values()))
        updates = _updates()
        if statements:
            top = _top_statements()
        events = sum(Match.objects.filter(id__in=played).values_list("last_version", flat=True))
    return {
        "bench": "pgserver",
        "pg_server_cpu_ms_per_match": round(statistics.median(round_ms), 2),
        "pg_server_cpu_ms_per_match_rounds": [round(ms, 2) for ms in round_ms],
        # Summed over the rounds, per match: which processes the CPU went to.
        "pg_server_cpu_ms_per_match_by_process": {
            kind: round(1000 * cpu / len(played), 2)
            for kind, cpu in sorted(kinds.items(), key=lambda kv: -kv[1])
        },
        "connections_per_match": round(connections / len(played), 2),
        "updates_and_hot_updates": updates,
        "matches_per_round": matches,
        "rounds": rounds,
        "events_per_match": round(events / len(played), 1),
        "seconds_per_round": [round(s, 1) for s in round_seconds],
        "database": database,
        **({"statements": top} if statements else {}),
        "what": (
            f"{GAME} ladder matches of {len(PLAYERS)} built-in bots: create_rated_match,"
            " one celery worker (solo) playing them and rating them (update_ratings, woken per"
            " finished match); CPU of every process of a Postgres cluster of the bench's own"
            " (/proc/<pid>/stat, the postmaster's reaped children included) from the first"
            " creation to the last rating, per match; median of the rounds"
        ),
    }
