"""``manage.py bench <name>``: performance figures as JSON, measured side by side in one run."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser


def _eventstore(options: dict[str, Any]) -> dict[str, Any]:
    from tournaments.bench.eventstore import bench_eventstore

    with _database(options):
        return bench_eventstore(batches=options["batches"], matches=options["match_costs"])


def _engine(options: dict[str, Any]) -> dict[str, Any]:
    from games.engine.registry import get
    from tournaments.bench.engine import bench_engine

    return bench_engine(
        get(options["game"] or "brexit"), seats=options["seats"], seconds=options["seconds"]
    )


def _sandbox(options: dict[str, Any]) -> dict[str, Any]:
    from tournaments.bench.sandbox import bench_sandbox

    return bench_sandbox()


def _match(options: dict[str, Any]) -> dict[str, Any]:
    from games.engine.registry import GAMES
    from tournaments.bench.match import bench_match

    games = [options["game"]] if options["game"] else sorted(GAMES)
    with _database(options):
        return bench_match(games, seconds=options["seconds"])


def _archive(options: dict[str, Any]) -> dict[str, Any]:
    from games.engine.registry import GAMES
    from tournaments.bench.archive import bench_archive

    games = [options["game"]] if options["game"] else sorted(GAMES)
    out: dict[str, Any] = {"bench": "archive", "games": {}}
    for game in games:  # each in a database of its own: the sizes are its matches' alone
        with _database(options):
            out["games"][game] = bench_archive(game, options["archive_matches"])
    return out


def _replay(options: dict[str, Any]) -> dict[str, Any]:
    from tournaments.bench.replay import bench_replay

    with _database(options):
        return bench_replay()


def _ratings(options: dict[str, Any]) -> dict[str, Any]:
    from tournaments.bench.ratings import bench_ratings

    with _database(options):
        return bench_ratings(results=options["results"])


def _convergence(options: dict[str, Any]) -> dict[str, Any]:
    from tournaments.bench.convergence import bench_convergence

    return bench_convergence(seeds=options["seeds"])


def _scale(options: dict[str, Any]) -> dict[str, Any]:
    from tournaments.bench.scale import bench_scale

    with _database(options):
        return bench_scale(
            matches=options["matches"],
            rounds=options["rounds"],
            game=options["game"] or "brasilis",
            seats=options["seats"],
            bots=options["bots"],
        )


def _pgserver(options: dict[str, Any]) -> dict[str, Any]:
    from tournaments.bench.pg_server import bench_pg_server

    # Its own Postgres cluster and a database there: never the configured one.
    return bench_pg_server(
        matches=options["server_matches"],
        rounds=options["rounds"],
        statements=options["statements"],
    )


def _load(options: dict[str, Any]) -> dict[str, Any]:
    from tournaments.bench.load.bench import bench_load

    with _database(options):
        return bench_load(
            users=options["users"],
            seconds=options["load_seconds"],
            baseline_seconds=options["baseline_seconds"],
            web_threads=options["web_threads"],
            web_workers=options["web_workers"],
        )


def _endpoints(options: dict[str, Any]) -> dict[str, Any]:
    from tournaments.bench.endpoints import bench_endpoints

    with _database(options):
        return bench_endpoints(matches=options["table_matches"], requests=options["requests"])


def _lists(options: dict[str, Any]) -> dict[str, Any]:
    from tournaments.bench.lists import bench_lists

    sizes = [int(size) for size in options["sizes"].split(",")]
    with _database(options):
        return bench_lists(sizes=sizes, repeats=options["repeats"], pages_each=options["pages"])


def _fairness(options: dict[str, Any]) -> dict[str, Any]:
    from tournaments.bench.fairness import bench_fairness

    with _database(options):
        return bench_fairness(
            workers=options["workers"],
            flood=options["flood"],
            bot_sleep=options["bot_sleep"],
            kind=options["kind"],
        )


def _human(options: dict[str, Any]) -> dict[str, Any]:
    from tournaments.bench.human import bench_human

    with _database(options):
        return bench_human(
            workers=options["workers"],
            people_workers=options["people_workers"],
            games=options["games"],
            think=options["think"],
            max_moves=options["max_moves"],
        )


DEFAULT_TWINS = (
    "brexit:bold:greedy:1000",
    "brexit:cautious:greedy:1000",
    "brexit:cautious:bold:1000",
    "brasilis:bold:greedy:400",
    "brasilis:cautious:greedy:400",
    "brasilis:bold:cautious:400",
)
"""Every pair of the three one-step built-ins in each game (``random`` is far weaker than each,
``quick`` and ``search`` cost 15 to 80 times more a game): the bench reports the closest pair
that differs by a stated rule (tournaments.bench.twins.closest), whichever it is."""
QUICK_PAIRS = 16
QUICK_TESTS = 200
"""--quick: the simulated tests a point (fewer when asked), enough for its error rates' check."""


def _sprt(options: dict[str, Any]) -> dict[str, Any]:
    from tournaments.bench.sprt import Twins, bench_sprt

    games = []
    field = tuple(options["field"].split(","))
    for spec in () if options["no_twins"] else options["twins"] or DEFAULT_TWINS:
        try:
            game, candidate, baseline, pairs = spec.split(":")
        except ValueError:
            raise CommandError(f"--twins {spec}: expected game:candidate:baseline:pairs") from None
        count = min(int(pairs), QUICK_PAIRS) if options["quick"] else int(pairs)
        games.append(Twins(game, candidate, baseline, field, count))
    return bench_sprt(
        elo0=options["elo0"],
        elo1=options["elo1"],
        alpha=options["alpha"],
        beta=options["beta"],
        draw_ratio=options["draw_ratio"],
        tests=min(options["tests"], QUICK_TESTS) if options["quick"] else options["tests"],
        seed=options["seed"],
        games=games,
        resamples=20 if options["quick"] else options["resamples"],
    )


def _database(options: dict[str, Any]) -> AbstractContextManager[Any]:
    """A throwaway database unless --in-place (the test suite's database is throwaway already)."""
    from tournaments.bench.eventstore import bench_database

    return nullcontext() if options["in_place"] else bench_database()


BENCHES: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "eventstore": _eventstore,
    "archive": _archive,
    "engine": _engine,
    "sandbox": _sandbox,
    "match": _match,
    "replay": _replay,
    "ratings": _ratings,
    "convergence": _convergence,
    "scale": _scale,
    "load": _load,
    "pgserver": _pgserver,
    "endpoints": _endpoints,
    "lists": _lists,
    "fairness": _fairness,
    "human": _human,
    "sprt": _sprt,
}


OPTIONS: tuple[tuple[str, Callable[[str], Any], Any, str], ...] = (
    # flag, type, default, help (the benches it is for first)
    ("--game", str, None, "engine: which game (brexit); match: one game (all)"),
    ("--seats", int, 4, "engine/scale: players per game"),
    ("--seconds", float, 3.0, "engine/match: time per measurement"),
    ("--batches", int, 300, "eventstore: batches of 100 events"),
    (
        "--match-costs",
        int,
        200,
        "eventstore: Brexit matches played for pg_cpu_ms_per_match (0: none)",
    ),
    ("--results", int, 100_000, "ratings: stored 4-player results"),
    ("--seeds", int, 10, "convergence: simulations"),
    ("--users", int, 50, "load: concurrent users"),
    ("--load-seconds", float, 60.0, "load: time under web load"),
    (
        "--baseline-seconds",
        float,
        20.0,
        "load: each quiet window (before and after) measuring match throughput",
    ),
    ("--web-workers", int, 2, "load: gunicorn web worker processes (deploy/Procfile: 2)"),
    (
        "--web-threads",
        int,
        1,
        "load: gunicorn threads per web worker (deploy/Procfile: 1, sync workers)",
    ),
    ("--matches", int, 12, "scale: matches per side of each round"),
    ("--archive-matches", int, 10000, "archive: matches of each game"),
    ("--rounds", int, 3, "scale: rounds (1 vs 2 each); pgserver: rounds"),
    ("--server-matches", int, 40, "pgserver: ladder matches played and rated per round"),
    (
        "--table-matches",
        int,
        10_000,
        "endpoints: matches stored (filled in SQL) while the pages are read",
    ),
    ("--requests", int, 100, "endpoints: measured requests per endpoint"),
    (
        "--sizes",
        str,
        "10000,1000000",
        "lists: the match table's sizes compared (comma-separated, smallest first)",
    ),
    ("--repeats", int, 7, "lists: reads of each page at each size"),
    ("--pages", int, 4, "lists: pages followed by each list's next link"),
    (
        "--bots",
        str,
        "quick",
        "scale: the built-in bot in every seat (quick: a match costs the worker seconds,"
        " as a ladder match of uploaded bots does; random: 10 ms, which measures Postgres)",
    ),
    ("--workers", int, 2, "fairness, human: worker processes reading every queue (solo pool each)"),
    (
        "--flood",
        int,
        30,
        "fairness: challenges one account sends (the cap accepts some, refuses the rest)",
    ),
    ("--bot-sleep", float, 0.2, "fairness: seconds the flood's sandboxed bot sleeps each decision"),
    (
        "--people-workers",
        int,
        1,
        "human: worker processes reading only the people queue (deploy/Procfile: 1)",
    ),
    ("--games", int, 2, "human: games the person plays"),
    ("--think", float, 1.5, "human: seconds the person thinks a move"),
    ("--max-moves", int, None, "human: stop after this many moves"),
    ("--tests", int, 1000, "sprt: simulated tests at elo0 and at elo1 each"),
    ("--elo0", float, 0.0, "sprt: H0's Elo difference"),
    ("--elo1", float, 20.0, "sprt: H1's Elo difference"),
    ("--alpha", float, 0.05, "sprt: false H1 at elo0"),
    ("--beta", float, 0.05, "sprt: false H0 at elo1"),
    (
        "--draw-ratio",
        float,
        0.03,
        "sprt: share of equal pairs in the simulation (the twins' measured share)",
    ),
    ("--field", str, "greedy,greedy,greedy", "sprt: the twins' opponents, in seat order"),
    ("--resamples", int, 200, "sprt: bootstrap resamples of the deals"),
    ("--seed", int, 1, "sprt: everything random derives from it"),
)
"""The benches' options that take a value: one table, each added the same way."""

SWITCHES: tuple[tuple[str, str], ...] = (
    (
        "--statements",
        "pgserver: load pg_stat_statements and print the top statements (a profile)",
    ),
    ("--no-twins", "sprt: the simulation only, no real games"),
    (
        "--quick",
        f"sprt: at most 200 tests a point, {QUICK_PAIRS} deals a game, 20 resamples (a test's size)",
    ),
    (
        "--in-place",
        "eventstore/archive/match/scale/fairness: write into the configured database instead of"
        " a throwaway <name>_bench one (what it writes there stays: events are append-only)",
    ),
)
"""The benches' on/off options."""


class Command(BaseCommand):
    help = "Run a benchmark and print its figures as JSON: " + ", ".join(BENCHES)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", choices=sorted(BENCHES))
        for flag, kind, default, text in OPTIONS:
            parser.add_argument(flag, type=kind, default=default, help=text)
        for flag, text in SWITCHES:
            parser.add_argument(flag, action="store_true", help=text)
        parser.add_argument(
            "--kind",
            choices=["challenges", "uploads"],
            default="challenges",
            help="fairness: the flood, challenges of one account or uploads of two of one address",
        )
        parser.add_argument(
            "--twins",
            action="append",
            metavar="GAME:CANDIDATE:BASELINE:PAIRS",
            help="sprt: built-ins compared on duplicate and independent deals (repeatable;"
            f" default {' '.join(DEFAULT_TWINS)})",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            figures = BENCHES[options["name"]](options)
        except ImportError as exc:
            raise CommandError(f"bench {options['name']} is not available: {exc}") from exc
        self.stdout.write(json.dumps(figures, indent=2))
