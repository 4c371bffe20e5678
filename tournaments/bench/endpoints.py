"""``manage.py bench endpoints``: what one read of each busy page costs, in CPU, web and Postgres.

In a throwaway database holding ``matches`` matches (``tournaments.bench.match_table``), one
gunicorn worker (the project's WSGI app, DEBUG off, sync, as deploy/ runs it) is asked each
endpoint ``requests`` times in a row by one client, after a few warm-up requests. Measured:

- ``web_cpu_ms``: the CPU time of gunicorn's processes (master and worker) over those requests,
  divided by their number;
- ``pg_cpu_ms``: the same of the Postgres backends connected to the bench database other than
  this process's own: the worker's persistent connection (``CONN_MAX_AGE``), so its backend
  lives across the requests and its CPU can be read.

Both from ``/proc/<pid>/schedstat`` (nanoseconds on the CPU; Linux, Postgres on the same host),
finer than the 10 ms ticks of ``/proc/<pid>/stat``. CPU time hardly moves with other work on
the machine, unlike wall time, which is printed too (``wall_ms_p50``).

The server runs twice: as deployed, anonymous reads of home, the match lists and a ladder's
page served from the page cache for ``PAGE_CACHE_SECONDS`` (tournaments/site/page_cache.py), which
``endpoints`` and ``worst_of_targeted`` report; then with that cache off (``uncached``), which is
what every miss, and every logged-in visitor's read, costs.
"""

from __future__ import annotations

import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection

from tournaments.bench import match_table
from tournaments.bench.children import Child, database_url
from tournaments.site import page_cache

TARGETS = {"web_cpu_ms": 5.0, "pg_cpu_ms": 2.0}
WARM = 10


def run_seconds(pid: int) -> float:
    """Seconds ``pid`` has spent on a CPU (0 if it has ended)."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


def group_seconds(group: int) -> float:
    """CPU seconds of the live processes of process group ``group``."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group:
            total += run_seconds(int(stat.parent.name))
    return total


def backends() -> list[int]:
    """Pids of the client backends connected to this database, this process's own excepted."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
            " AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
        )
        return [int(row[0]) for row in cur.fetchall()]


def get(url: str) -> tuple[float, bool]:
    """One GET (must answer 200): its wall time in ms, and whether the page cache served it."""
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310 (our own loopback server)
        response.read()
        if response.status != 200:
            raise RuntimeError(f"bench endpoints: {url} answered {response.status}")
        hit = response.headers.get(page_cache.SAID) == "hit"
    return 1000 * (time.perf_counter() - start), hit


def endpoints(the_cast: match_table.Cast) -> dict[str, str]:
    """The reads measured, by name: the issue's three, filtered lists, a later page, a bot."""
    bot = the_cast.bots[0]
    return {
        "home": "/",
        "site_match_list": "/matches/",
        "api_match_list": "/api/matches/",
        "site_match_list_filtered": "/matches/?game=brexit&status=finished",
        "api_match_list_filtered": "/api/matches/?game=brexit&status=finished",
        "site_match_list_bot": f"/matches/?bot={bot}",
        "api_match_list_bot": f"/api/matches/?bot={bot}",
        "bot_page": f"/bots/{bot}/",
    }


def measure(
    base: str, paths: dict[str, str], web_group: int, requests: int, reader: Callable[[], list[int]]
) -> dict[str, dict[str, float]]:
    figures = {}
    for name, path in paths.items():
        for _ in range(WARM):
            get(base + path)
        pids = reader()
        web, pg = group_seconds(web_group), sum(run_seconds(p) for p in pids)
        answers = [get(base + path) for _ in range(requests)]
        web = group_seconds(web_group) - web
        pg = sum(run_seconds(p) for p in pids) - pg
        if reader() != pids:
            raise RuntimeError("bench endpoints: the web's Postgres connection changed mid-way")
        figures[name] = {
            "web_cpu_ms": round(1000 * web / requests, 2),
            "pg_cpu_ms": round(1000 * pg / requests, 2),
            "wall_ms_p50": round(statistics.median(wall for wall, _ in answers), 1),
            "page_cache_hits": sum(hit for _, hit in answers),
            "backends": len(pids),
        }
    return figures


def serve(paths: dict[str, str], requests: int, env: dict[str, str]) -> dict[str, dict[str, float]]:
    """Start one gunicorn worker with ``env`` and measure ``paths`` against it."""
    with ExitStack() as stack:
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="backroom-endpoints-")))
        from tournaments.bench.load.bench import _free_port, _ok, _wait

        port = _free_port()
        base = f"http://127.0.0.1:{port}"
        web = Child("gunicorn", [
            str(Path(sys.executable).parent / "gunicorn"), "config.wsgi", "--bind", f"127.0.0.1:{port}",
            "--workers", "1", "--control-socket", str(work / "gunicorn.ctl"),
            "--max-requests", "0",
        ], env)  # fmt: skip
        stack.callback(web.stop)
        _wait(lambda: _ok(f"{base}/api/ladders/"), 60, web, "the web server did not answer")
        return measure(base, paths, web.process.pid, requests, backends)


def bench_endpoints(
    matches: int = 10_000, requests: int = 100, page_cache_seconds: float = 2.0
) -> dict[str, Any]:
    run = f"endpoints-{secrets.token_hex(4)}"
    the_cast = match_table.cast(run)
    match_table.extend(the_cast, 0, matches)
    paths = endpoints(the_cast)
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": os.environ.get("DJANGO_SETTINGS_MODULE", "config.settings.local"),
        "DATABASE_URL": database_url(),
        "DEBUG": "false",
        # One backend for the whole run (60 s by default): its CPU is read across requests.
        "CONN_MAX_AGE": "86400",
        "CACHE_KEY_PREFIX": run,
        "TEST_CACHE_PREFIX": run,
    }
    if "Manifest" in settings.STORAGES["staticfiles"]["BACKEND"]:
        subprocess.run([sys.executable, "manage.py", "collectstatic", "--no-input", "-v0"], cwd=settings.BASE_DIR, env=env, check=True)  # fmt: skip
    figures = serve(paths, requests, {**env, "PAGE_CACHE_SECONDS": str(page_cache_seconds)})
    uncached = serve(paths, requests, {**env, "PAGE_CACHE_SECONDS": "0"})
    worst = {
        key: max(f[key] for name, f in figures.items() if name in TARGETS_APPLY) for key in TARGETS
    }
    return {
        "bench": "endpoints",
        "matches": matches,
        "requests_each": requests,
        "web": "gunicorn, 1 sync worker; anonymous GETs one after another",
        "cpu_from": "/proc/<pid>/schedstat of gunicorn's processes and of the worker's Postgres backend",
        "page_cache_seconds": page_cache_seconds,
        "endpoints": figures,
        "worst_of_targeted": worst,
        "uncached": uncached,
        "worst_of_targeted_uncached": {
            key: max(f[key] for name, f in uncached.items() if name in TARGETS_APPLY)
            for key in TARGETS
        },
        "targets": {name: TARGETS for name in TARGETS_APPLY},
    }


TARGETS_APPLY = ("home", "site_match_list", "api_match_list")
"""The endpoints the issue's targets name; the others are measured alongside."""
