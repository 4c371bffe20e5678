"""``manage.py bench lists``: do the lists cost the same whatever the size of the match table?

In a throwaway database, the match table is filled in SQL (``tournaments.bench.match_table``) to
each size in turn (10,000 then 1,000,000 matches by default; rows added for a larger size are
older than every row there, so the newest pages show the same matches at every size). At each
size every list is read, in this process (Django's test client, anonymous): home, a bot's page,
and the site's and the API's match lists, unfiltered and by each filter, each page reached by
following its ``next`` link (``--pages`` of them). Each page is read ``repeats`` times in
rounds, and per read two times are taken:

- ``cpu_ms``: this process's CPU time plus that of its Postgres backend (``/proc/<pid>/schedstat``
  of both), which other work on the shared machine hardly moves; the backend plans serially
  (``max_parallel_workers_per_gather`` 0), so that all of a page's database work is counted;
- ``wall_ms``: the wall time, printed as well.

``p50_ratio`` is the worst, over every page, of p50(cpu at the largest size) / p50(cpu at the
smallest); ``wall_p50_ratio`` the same of wall times. Target: ``p50_ratio`` <= 1.3.
"""

from __future__ import annotations

import os
import re
import secrets
import statistics
import time
from typing import Any

from django.conf import settings
from django.db import connection
from django.test import Client, override_settings

from tournaments.bench import match_table
from tournaments.bench.endpoints import run_seconds

TARGET = 1.3
NEXT_LINK = re.compile(r'<a rel="next" href="([^"]+)"')


def lists(the_cast: match_table.Cast) -> dict[str, str]:
    """Every list, by name: first page's URL. Site lists page by their rel=next link."""
    brexit_ladder, _ = the_cast.ladders
    _, brasilis_season = the_cast.seasons
    filters = {
        "all": "",
        "game": "game=brasilis",
        "status_finished": "status=finished",
        "status_running": "status=running",
        "status_aborted": "status=aborted",
        "ladder": f"ladder={brexit_ladder}",
        "season": f"season={brasilis_season}",
        "bot": f"bot={the_cast.bots[0]}",
        "game_and_status": "game=brexit&status=finished",
    }
    found = {"home": "/", "bot_page": f"/bots/{the_cast.bots[0]}/"}
    for name, query in filters.items():
        found[f"site_{name}"] = f"/matches/?{query}"
        found[f"api_{name}"] = f"/api/matches/?{query}"
    return found


def _next(client: Client, url: str) -> str | None:
    response = client.get(url)
    if response.status_code != 200:
        raise RuntimeError(f"bench lists: {url} answered {response.status_code}")
    if url.startswith("/api/"):
        link = response.json()["next"]
        return link.removeprefix("http://testserver") if link else None
    found = NEXT_LINK.search(response.content.decode())
    return url.split("?")[0] + found.group(1).replace("&amp;", "&") if found else None


def pages(client: Client, firsts: dict[str, str], count: int) -> dict[str, str]:
    """Each list's first page and the ``count`` - 1 reached by following ``next`` from it, those
    that are full at this size (a page with a next link): a last page, shorter here, would show
    more rows at a larger size, which is no measure of the table's size."""
    found = {"home": firsts.pop("home"), "bot_page": firsts.pop("bot_page")}
    for name, url in firsts.items():
        at = url
        for number in range(1, count + 1):
            following = _next(client, at)
            if following is None:
                break
            found[f"{name}#{number}"] = at
            at = following
    return found


def _backend() -> int:
    """This process's Postgres backend, serial: a parallel plan's workers are processes of their
    own, whose CPU its schedstat would not count (the bot filter's plan at 1,000,000 matches)."""
    with connection.cursor() as cur:
        cur.execute("SET max_parallel_workers_per_gather = 0")
        cur.execute("SELECT pg_backend_pid()")
        return int(cur.fetchone()[0])


def measure(client: Client, urls: dict[str, str], repeats: int) -> dict[str, dict[str, float]]:
    backend = _backend()
    own = os.getpid()
    cpu: dict[str, list[float]] = {name: [] for name in urls}
    wall: dict[str, list[float]] = {name: [] for name in urls}
    for url in urls.values():  # warm: caches, prepared plans, the pages' first reads
        client.get(url)
    for _ in range(repeats):
        for name, url in urls.items():
            before = run_seconds(own) + run_seconds(backend), time.perf_counter()
            response = client.get(url)
            after = run_seconds(own) + run_seconds(backend), time.perf_counter()
            if response.status_code != 200:
                raise RuntimeError(f"bench lists: {url} answered {response.status_code}")
            cpu[name].append(1000 * (after[0] - before[0]))
            wall[name].append(1000 * (after[1] - before[1]))
    return {
        name: {
            "cpu_ms_p50": round(statistics.median(cpu[name]), 2),
            "wall_ms_p50": round(statistics.median(wall[name]), 2),
        }
        for name in urls
    }


def bench_lists(
    sizes: list[int] | None = None, repeats: int = 7, pages_each: int = 4
) -> dict[str, Any]:
    sizes = sorted(sizes or [10_000, 1_000_000])
    run = f"lists-{secrets.token_hex(4)}"
    caches = {**settings.CACHES, "default": {**settings.CACHES["default"], "KEY_PREFIX": run}}
    by_size: dict[int, dict[str, dict[str, float]]] = {}
    fill_seconds: dict[int, float] = {}
    with override_settings(ALLOWED_HOSTS=["testserver"], CACHES=caches):
        the_cast = match_table.cast(run)
        client = Client()
        stored = 0
        urls: dict[str, str] = {}
        for size in sizes:
            start = time.monotonic()
            match_table.extend(the_cast, stored, size - stored)
            fill_seconds[size] = round(time.monotonic() - start, 1)
            stored = size
            if not urls:  # the same pages at every size: the newest rows never change
                urls = pages(client, lists(the_cast), pages_each)
            by_size[size] = measure(client, urls, repeats)
    small, large = by_size[sizes[0]], by_size[sizes[-1]]

    def ratios(key: str) -> dict[str, float]:
        return {name: round(large[name][key] / max(small[name][key], 1e-3), 2) for name in urls}

    cpu_ratios, wall_ratios = ratios("cpu_ms_p50"), ratios("wall_ms_p50")
    worst = max(cpu_ratios, key=lambda name: cpu_ratios[name])
    return {
        "bench": "lists",
        "sizes": sizes,
        "fill_seconds": fill_seconds,
        "pages_read": len(urls),
        "repeats": repeats,
        "measure": "p50 per page of this process's CPU + its Postgres backend's (schedstat); wall too",
        "by_size": {str(size): figures for size, figures in by_size.items()},
        "cpu_ratio_by_page": cpu_ratios,
        "p50_ratio": cpu_ratios[worst],
        "worst": worst,
        "wall_p50_ratio": max(wall_ratios.values()),
        "target": TARGET,
    }
