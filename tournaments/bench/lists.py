"""``manage.py bench lists``: do the lists cost the same whatever the size of the match table?

Both sizes are kept side by side in one throwaway database (10,000 and 1,000,000 matches by
default): the smaller in the platform's own tables, the larger in a schema of its own holding
copies of the tables that grow (``match_table.GROWN``: matches, seats, faults, the bots' fault
counts), both filled in SQL (``tournaments.bench.match_table``) with the same newest rows, so
that the newest pages show the same matches at both sizes: only the table underneath differs.
Accounts, bots, ladders and seasons are the same rows for both. A read goes to one size or the
other by its connection's ``search_path`` alone (the larger's schema first, or not there).

Every list is read in this process (Django's test client, anonymous): home, a bot's page, and
the site's and the API's match lists, unfiltered and by each filter, each page reached by
following its ``next`` link (``--pages`` of them). Each page is read ``repeats`` times, and each
time on both sizes, one right after the other (which goes first alternates), so that whatever
the shared machine's load does during the run it does to both sizes alike. Per read:

- ``cpu_ms``: this process's CPU time plus that of its Postgres backend (``/proc/<pid>/schedstat``
  of both), which other work on the shared machine hardly moves; the backend plans serially
  (``max_parallel_workers_per_gather`` 0), so that all of a page's database work is counted;
- ``wall_ms``: the wall time, printed as well.

``p50_ratio`` is the worst, over every page, of p50(cpu at the larger size) / p50(cpu at the
smaller); ``median_page_ratio`` the median page's; ``wall_p50_ratio`` the worst of wall times.
Target: ``p50_ratio`` <= 1.3.
"""

from __future__ import annotations

import os
import re
import secrets
import statistics
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.db import connection
from django.test import Client, override_settings
from django.utils.module_loading import import_string

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


@dataclass
class Side:
    """One size of the table: the schemas its reads resolve names in, and its own cache (home's
    ladder tops are cached: one size's must not be read at the other's)."""

    size: int
    search_path: str
    cache: Any


def _cache(prefix: str) -> Any:
    conf = {**settings.CACHES["default"], "KEY_PREFIX": prefix}
    backend = import_string(conf.pop("BACKEND"))
    return backend(conf.pop("LOCATION", ""), conf)


def _enter(side: Side) -> int:
    """Make this process's reads go to ``side``; its Postgres backend's pid. Serial: a parallel
    plan's workers are processes of their own, whose CPU its schedstat would not count."""
    caches["default"] = side.cache
    with connection.cursor() as cur:
        cur.execute(
            f"SET search_path TO {side.search_path}; SET max_parallel_workers_per_gather = 0"
        )
        cur.execute("SELECT pg_backend_pid()")
        return int(cur.fetchone()[0])


def _read(client: Client, side: Side, url: str) -> tuple[float, float]:
    """One read of ``url`` at ``side``: (CPU ms of this process and its backend, wall ms)."""
    backend, own = _enter(side), os.getpid()
    before = run_seconds(own) + run_seconds(backend), time.perf_counter()
    response = client.get(url)
    after = run_seconds(own) + run_seconds(backend), time.perf_counter()
    if response.status_code != 200:
        raise RuntimeError(f"bench lists: {url} answered {response.status_code} at {side.size}")
    return 1000 * (after[0] - before[0]), 1000 * (after[1] - before[1])


def measure(
    client: Client, urls: dict[str, str], sides: list[Side], repeats: int
) -> dict[int, dict[str, dict[str, float]]]:
    """Each page ``repeats`` times on every side, the sides read one right after the other."""
    cpu: dict[int, dict[str, list[float]]] = {
        side.size: {name: [] for name in urls} for side in sides
    }
    wall: dict[int, dict[str, list[float]]] = {
        side.size: {name: [] for name in urls} for side in sides
    }
    for url in urls.values():  # warm: caches, the pages' first reads
        for side in sides:
            _read(client, side, url)
    for round_ in range(repeats):
        for number, (name, url) in enumerate(urls.items()):
            # Which side goes first alternates: neither is always read just after the other.
            for side in sides if (round_ + number) % 2 == 0 else sides[::-1]:
                cpu_ms, wall_ms = _read(client, side, url)
                cpu[side.size][name].append(cpu_ms)
                wall[side.size][name].append(wall_ms)
    return {
        side.size: {
            name: {
                "cpu_ms_p50": round(statistics.median(cpu[side.size][name]), 2),
                "wall_ms_p50": round(statistics.median(wall[side.size][name]), 2),
            }
            for name in urls
        }
        for side in sides
    }


def _stored(side: Side) -> int:
    """The matches a read at ``side`` sees: its size, if its reads go to its own table."""
    _enter(side)
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM tournaments_match")
        return int(cur.fetchone()[0])


def _larger_tables(cur: Any, schema: str) -> None:
    """The schema of the larger size: empty copies of the tables that grow (columns, defaults,
    indexes; no triggers or foreign keys, which a read does not use)."""
    cur.execute(f"CREATE SCHEMA {schema}")
    for name in match_table.GROWN:
        cur.execute(
            f"CREATE TABLE {schema}.tournaments_{name}"
            f" (LIKE public.tournaments_{name} INCLUDING ALL)"
        )


def bench_lists(
    sizes: list[int] | None = None, repeats: int = 7, pages_each: int = 4
) -> dict[str, Any]:
    small_size, large_size = sorted(sizes or [10_000, 1_000_000])
    token = secrets.token_hex(4)
    run, schema = f"lists-{token}", f"lists_larger_{token}"
    with connection.cursor() as cur:
        cur.execute("SHOW search_path")
        restore = cur.fetchone()[0]
    sides = [
        Side(small_size, "public", _cache(f"{run}-small")),
        Side(large_size, f"{schema}, public", _cache(f"{run}-large")),
    ]
    kept_cache = caches["default"]
    fill_seconds: dict[int, float] = {}
    try:
        with override_settings(ALLOWED_HOSTS=["testserver"]):
            the_cast = match_table.cast(run)
            with connection.cursor() as cur:
                _larger_tables(cur, schema)
            for side in sides:
                _enter(side)
                start = time.monotonic()
                match_table.extend(the_cast, 0, side.size)
                fill_seconds[side.size] = round(time.monotonic() - start, 1)
            stored = {side.size: _stored(side) for side in sides}
            client = Client()
            _enter(sides[0])  # the same pages at both sizes: the newest rows are the same
            urls = pages(client, lists(the_cast), pages_each)
            by_size = measure(client, urls, sides, repeats)
    finally:
        caches["default"] = kept_cache
        with connection.cursor() as cur:
            cur.execute(f"SET search_path TO {restore}")
            cur.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    small, large = by_size[small_size], by_size[large_size]

    def ratios(key: str) -> dict[str, float]:
        return {name: round(large[name][key] / max(small[name][key], 1e-3), 2) for name in urls}

    cpu_ratios, wall_ratios = ratios("cpu_ms_p50"), ratios("wall_ms_p50")
    worst = max(cpu_ratios, key=lambda name: cpu_ratios[name])
    return {
        "bench": "lists",
        "sizes": [small_size, large_size],
        "fill_seconds": fill_seconds,
        "stored": {str(size): count for size, count in stored.items()},
        "pages_read": len(urls),
        "repeats": repeats,
        "measure": "p50 per page of this process's CPU + its Postgres backend's (schedstat), the"
        " two sizes read alternately; wall too",
        "by_size": {str(size): figures for size, figures in by_size.items()},
        "cpu_ratio_by_page": cpu_ratios,
        "p50_ratio": cpu_ratios[worst],
        "worst": worst,
        "median_page_ratio": round(statistics.median(cpu_ratios.values()), 2),
        "wall_p50_ratio": max(wall_ratios.values()),
        "target": TARGET,
    }
