"""An account's series and sequential A/B tests: creation, progressive play, results.

A **plain series** plays ``deals`` duplicate deals among its players: each deal (one seed) once
per seat rotation (``matchmaking.rotations``), the matches of a deal sharing ``Match.deal`` so
that what it dealt stays hidden until all of them are over (tournaments/play/visibility.py).

An **A/B test** (a series with a ``test`` block) plays pairs: deal ``k`` is played twice, with
the candidate in seat ``k mod seats`` and then the baseline in that seat, the field in the other
seats in the same order, on one seed. After each finished pair its outcome
(``sprt.pair_outcome``) feeds the sequential test (``sprt.SequentialTest``), which stops at the
first bound crossed or at the pairs cap; the matches still queued are then cancelled.

Matches are the owner's (``created_by``), so the workers share them with the owner's challenges
(tournaments/play/scheduler.py), and they are created a few deals at a time, within the owner's
allowance (``services.series_room``): :func:`advance`, run for every running series by a beat
tick (``tournaments.advance_series``, every few seconds) and once at creation. A beat tick is
the simplest robust trigger: it needs no hook in play's runner (play knows nothing of
competition), a lost message or a dead worker delays a series by one tick at most, and a tick
with nothing to do costs one query per running series.
"""

from __future__ import annotations

import math
import secrets
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from uuid_utils.compat import uuid7

from games.engine.errors import BadOptions
from games.engine.registry import GAMES
from tournaments.competition.matchmaking import rotations
from tournaments.competition.models import Series
from tournaments.play import services, visibility
from tournaments.play.models import Match, Seat
from tournaments.play.services import Invalid
from tournaments.rating import keys, ratings, sprt

State = Series.State

MAX_DEALS = 500
"""A plain series' most deals (each is played once per seat rotation)."""
MAX_PAIRS = 2000
"""An A/B test's largest pairs cap."""
IN_FLIGHT_DEALS = 2
"""Deals of one series being played at once: enough to keep a worker busy, few enough to leave
the owner's allowance to their other work and to stop an A/B test soon after its verdict."""
Z95 = sprt.Z95


# --- creation ----------------------------------------------------------------------------------


def create_series(
    *,
    user: Any,
    game: str,
    players: Sequence[Mapping[str, Any]] = (),
    deals: int = 1,
    options: Mapping[str, Any] | None = None,
    name: str = "",
    test: Mapping[str, Any] | None = None,
) -> Series:
    """A running series (or A/B test, given ``test``) of ``user``'s, its first deals queued.

    ``players`` (a plain series) and the test's ``candidate``, ``baseline`` and ``field`` are
    seats as in a challenge: ``{"bot_version": id}`` or ``{"builtin": name}``. Raises Invalid
    with a message per field.
    """
    if game not in GAMES:
        raise Invalid({"game": f"unknown game {game!r}; known games: {', '.join(sorted(GAMES))}"})
    info = GAMES[game]
    if test is None:
        table = _players(user, game, players, "players")
        if not isinstance(deals, int) or isinstance(deals, bool) or not 1 <= deals <= MAX_DEALS:
            raise Invalid({"deals": f"deals must be a whole number from 1 to {MAX_DEALS}"})
        block = None
    else:
        if players:
            raise Invalid(
                {"players": "an A/B test's players are its candidate, baseline and field"}
            )
        block = _test_block(user, game, test)
        table = [block["candidate"], *block["field"]]
        deals = block["max_games"]
    if not info.min_seats <= len(table) <= info.max_seats:
        field = "players" if test is None else "test"
        raise Invalid(
            {
                field: f"{info.title} takes {info.min_seats} to {info.max_seats} seats, not {len(table)}"
            }
        )
    if len(set(table)) != len(table) or (block and block["baseline"] in table):
        field = "players" if test is None else "test"
        raise Invalid({field: "each player may take one seat only (twice the same bot or version)"})
    try:
        played_options = dict(info.rules.options(len(table), dict(options or {})))
    except BadOptions as exc:
        raise Invalid({"options": str(exc)[:2000]}) from None
    services.check_start(game, len(table), played_options)
    with transaction.atomic():
        series = Series.objects.create(
            owner=user,
            name=str(name)[:100],
            game=game,
            seats=len(table),
            players=table if block is None else [],
            deals=deals,
            options=played_options,
            test=block,
        )
        advance(series)
    series.refresh_from_db()
    return series


def _players(user: Any, game: str, seats: Any, field: str) -> list[str]:
    if not isinstance(seats, Sequence) or isinstance(seats, str | bytes) or not seats:
        raise Invalid({field: "give a list of seats, each {bot_version: id} or {builtin: name}"})
    if not all(isinstance(seat, Mapping) for seat in seats):
        raise Invalid({field: "each seat is {bot_version: id} or {builtin: name}"})
    try:
        return services.seat_players(user=user, game=game, seats=seats)
    except Invalid as exc:
        raise Invalid({field: exc.errors["seats"]}) from None


def _number(test: Mapping[str, Any], key: str, default: float) -> float:
    value = test.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise Invalid({"test": f"{key} must be a number"})
    return float(value)


def _test_block(user: Any, game: str, test: Any) -> dict[str, Any]:
    """The test's block as stored: players as play's keys, the test's parameters checked."""
    if not isinstance(test, Mapping):
        raise Invalid(
            {"test": "give candidate, baseline, field, elo0, elo1, alpha, beta, max_games"}
        )
    unknown = set(test) - {
        "candidate",
        "baseline",
        "field",
        "elo0",
        "elo1",
        "alpha",
        "beta",
        "max_games",
    }
    if unknown:
        raise Invalid({"test": f"unknown keys: {', '.join(sorted(map(str, unknown)))}"})
    for key in ("candidate", "baseline", "field"):
        if key not in test:
            raise Invalid({"test": f"{key} is required"})
    candidate, baseline = _players(user, game, [test["candidate"], test["baseline"]], "test")
    field = _players(user, game, test["field"], "test")
    max_games = test.get("max_games", 200)
    if (
        not isinstance(max_games, int)
        or isinstance(max_games, bool)
        or not 1 <= max_games <= MAX_PAIRS
    ):
        raise Invalid({"test": f"max_games (pairs) must be a whole number from 1 to {MAX_PAIRS}"})
    parameters = {
        "elo0": _number(test, "elo0", 0.0),
        "elo1": _number(test, "elo1", 20.0),
        "alpha": _number(test, "alpha", 0.05),
        "beta": _number(test, "beta", 0.05),
    }
    try:
        sprt.SequentialTest(**parameters, max_pairs=max_games)
    except ValueError as exc:
        raise Invalid({"test": str(exc)}) from None
    if candidate == baseline:
        raise Invalid({"test": "the candidate and the baseline must differ"})
    return {
        "candidate": candidate,
        "baseline": baseline,
        "field": field,
        **parameters,
        "max_games": max_games,
    }


def sequential_test(series: Series) -> sprt.SequentialTest:
    test = series.test or {}
    return sprt.SequentialTest(
        elo0=test["elo0"],
        elo1=test["elo1"],
        alpha=test["alpha"],
        beta=test["beta"],
        max_pairs=test["max_games"],
    )


# --- play ---------------------------------------------------------------------------------------


def deal_tables(series: Series, k: int) -> list[list[str]]:
    """The tables of the series' deal ``k``: each rotation (plain), or the pair (A/B)."""
    if series.test is None:
        return rotations(list(series.players))
    test = series.test
    field = list(test["field"])
    seat = k % series.seats
    return [[*field[:seat], test[version], *field[seat:]] for version in ("candidate", "baseline")]


def _unfinished_deals(series: Series) -> int:
    return (
        Match.objects.filter(series=series)
        .exclude(status__in=visibility.OVER)
        .values("deal")
        .distinct()
        .count()
    )


def advance(series: Series) -> int:
    """Bring a running series up to date: an A/B test's verdict, the series' end, and the next
    deals' matches within the owner's allowance. Returns the matches created."""
    with transaction.atomic():
        series = Series.objects.select_for_update().get(pk=series.pk)
        if series.state != State.RUNNING:
            return 0
        if series.test is not None and _decide(series):
            return 0
        playing = _unfinished_deals(series)
        if series.test is None:
            wanted = series.deals - series.deals_started
        else:
            done = len(pairs(series))
            wanted = series.test["max_games"] - done - playing
            if series.deals_started >= 2 * series.test["max_games"]:
                wanted = 0  # half its pairs void (a bot that keeps failing): stop replacing them
        if wanted <= 0 and playing == 0:
            _end(series, State.FINISHED)
            return 0
        created = 0
        room = services.series_room(user=series.owner)
        while wanted > 0 and playing < IN_FLIGHT_DEALS:
            tables = deal_tables(series, series.deals_started)
            if room < len(tables):
                break
            _start_deal(series, tables)
            room -= len(tables)
            created += len(tables)
            wanted -= 1
            playing += 1
        return created


def _start_deal(series: Series, tables: list[list[str]]) -> None:
    seed, deal = secrets.randbits(63), uuid7()
    for table in tables:
        services.create_series_match(
            user=series.owner,
            game=series.game,
            players=table,
            seed=seed,
            options=series.options,
            series_id=series.pk,
            deal=deal,
        )
    series.deals_started += 1
    series.save(update_fields=["deals_started"])


def _decide(series: Series) -> bool:
    """Stop an A/B test at its first bound crossed or its cap; True if it stopped now."""
    test = sequential_test(series)
    counts = sprt.Counts()
    for number, pair in enumerate(pairs(series), start=1):
        counts = counts.add(pair.outcome)
        verdict = test.verdict(counts)
        if verdict != sprt.Verdict.CONTINUE:
            series.verdict, series.decided_pairs = str(verdict), number
            _end(series, State.FINISHED)
            return True
    return False


def _end(series: Series, state: str) -> None:
    series.state, series.finished_at = state, timezone.now()
    series.save(update_fields=["state", "finished_at", "verdict", "decided_pairs"])
    services.cancel_queued_matches(
        matches=Match.objects.filter(series=series), reason=f"the series is {state}"
    )


def cancel_series(*, series: Series) -> Series:
    """Stop a running series: its queued matches are cancelled, those playing finish."""
    with transaction.atomic():
        series = Series.objects.select_for_update().get(pk=series.pk)
        if series.state != State.RUNNING:
            raise Invalid({"state": f"the series is {series.state}, not running"})
        _end(series, State.CANCELLED)
    return series


def advance_all() -> int:
    """Advance every running series (the beat tick); the matches created."""
    running = list(Series.objects.filter(state=State.RUNNING).values_list("pk", flat=True))
    return sum(advance(Series(pk=pk)) for pk in running)


# --- results ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Game:
    """One finished match of a series, as its results read it."""

    match_id: Any
    deal: Any
    finished_at: datetime
    players: list[str]
    ranks: list[int]
    scores: list[float]


def games(series: Series) -> list[Game]:
    """The series' finished matches, in finishing order, from the seats' results (written by
    the result trigger from each ``match_finished`` event)."""
    rows = (
        Seat.objects.filter(match__series=series, match__status=Match.Status.FINISHED)
        .order_by("match__finished_at", "match_id", "number")
        .values_list(
            "match_id",
            "match__deal",
            "match__finished_at",
            "bot_version_id",
            "builtin",
            "rank",
            "score",
        )
    )
    by_match: dict[Any, Game] = {}
    for match_id, deal, finished_at, version, builtin, rank, score in rows:
        # A finished match has its end time: the result trigger sets both at once.
        ended = finished_at or timezone.now()
        game = by_match.setdefault(match_id, Game(match_id, deal, ended, [], [], []))
        game.players.append(keys.player_of(bot_version_id=version, builtin=builtin))
        game.ranks.append(int(rank or 0))
        game.scores.append(float(score or 0.0))
    return list(by_match.values())


@dataclass(frozen=True)
class Pair:
    """An A/B test's finished pair: the candidate's game and its twin's, on one deal."""

    deal: Any
    seat: int
    candidate: Game
    baseline: Game
    outcome: sprt.PairOutcome


def pairs(series: Series) -> list[Pair]:
    """The test's finished pairs in the order they finished (their later game's end)."""
    test = series.test or {}
    by_deal: dict[Any, list[Game]] = defaultdict(list)
    for game in games(series):
        by_deal[game.deal].append(game)
    found: list[tuple[datetime, Pair]] = []
    for deal, twins in by_deal.items():
        mine = [g for g in twins if test.get("candidate") in g.players]
        theirs = [g for g in twins if test.get("baseline") in g.players]
        if len(mine) != 1 or len(theirs) != 1:
            continue  # its twin is still playing, or was aborted: no pair
        a, b = mine[0], theirs[0]
        seat = a.players.index(test["candidate"])
        outcome = sprt.pair_outcome(
            sprt.finish(a.ranks, a.scores, seat), sprt.finish(b.ranks, b.scores, seat)
        )
        found.append((max(a.finished_at, b.finished_at), Pair(deal, seat, a, b, outcome)))
    found.sort(key=lambda item: (item[0], str(item[1].deal)))
    return [pair for _, pair in found]


def _mean_interval(values: Sequence[float]) -> dict[str, float | None]:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return {"mean": mean, "low": None, "high": None}
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = Z95 * sd / math.sqrt(n)
    return {"mean": mean, "low": mean - half, "high": mean + half}


def wilson(successes: int, n: int) -> dict[str, float]:
    """A share and its 95% Wilson interval (sensible for a few games and for 0 or n)."""
    share = successes / n
    z2 = Z95 * Z95
    centre = (share + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(share * (1 - share) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return {"share": share, "low": max(0.0, centre - half), "high": min(1.0, centre + half)}


def player_results(played: Sequence[Game]) -> list[dict[str, Any]]:
    """Per player: games, mean rank, mean score and share of wins (rank 1), each with its 95%
    interval (normal for the means, Wilson for the share)."""
    ranks: dict[str, list[float]] = defaultdict(list)
    scores: dict[str, list[float]] = defaultdict(list)
    for game in played:
        for player, rank, score in zip(game.players, game.ranks, game.scores, strict=True):
            ranks[player].append(rank)
            scores[player].append(score)
    return [
        {
            "player": player,
            "games": len(ranks[player]),
            "rank": _mean_interval(ranks[player]),
            "score": _mean_interval(scores[player]),
            "wins": wilson(sum(1 for r in ranks[player] if r == 1), len(ranks[player])),
        }
        for player in sorted(ranks, key=lambda p: (sum(ranks[p]) / len(ranks[p]), p))
    ]


def head_to_head(played: Sequence[Game]) -> list[dict[str, Any]]:
    """For each two players who met: how often the first finished above, level with and below
    the second in the same game."""
    table: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for game in played:
        for i, a in enumerate(game.players):
            for j, b in enumerate(game.players):
                if a < b:
                    counts = table[(a, b)]
                    ri, rj = game.ranks[i], game.ranks[j]
                    counts[0 if ri < rj else 1 if ri == rj else 2] += 1
    return [
        {"player": a, "opponent": b, "above": c[0], "equal": c[1], "below": c[2], "games": sum(c)}
        for (a, b), c in sorted(table.items())
    ]


def strengths(played: Sequence[Game]) -> list[dict[str, Any]]:
    """The season fit (Plackett-Luce strengths on the Elo scale, with 95% intervals)."""
    results = [dict(zip(game.players, game.ranks, strict=True)) for game in played]
    return [
        {
            "place": s.place,
            "player": s.player,
            "elo": round(s.elo, 1),
            "low": round(s.low, 1),
            "high": round(s.high, 1),
            "games": s.games,
        }
        for s in ratings.season_standings(results)
    ]


def test_results(series: Series) -> dict[str, Any] | None:
    """An A/B test's state: its bounds, the LLR after each pair, the counts, the Elo estimate
    with its interval and the verdict (``continue`` while it runs)."""
    if series.test is None:
        return None
    test = sequential_test(series)
    finished = pairs(series)
    if series.decided_pairs is not None:
        finished = finished[: series.decided_pairs]
    counts = sprt.Counts()
    path = []
    for pair in finished:
        counts = counts.add(pair.outcome)
        path.append(round(test.llr(counts), 4))
    found = sprt.estimate(counts)
    verdict = series.verdict or (
        "cancelled" if series.state == State.CANCELLED else str(test.verdict(counts))
    )
    return {
        "lower": round(test.lower, 4),
        "upper": round(test.upper, 4),
        "llr": path,
        "pairs": counts.pairs,
        "counts": {"below": counts.losses, "equal": counts.draws, "above": counts.wins},
        "elo": None
        if found is None
        else {"elo": _finite(found.elo), "low": _finite(found.low), "high": _finite(found.high)},
        "verdict": verdict,
    }


def _finite(value: float) -> float | None:
    """JSON has no infinity: an unbounded end is null."""
    return round(value, 1) if math.isfinite(value) else None


def results(series: Series) -> dict[str, Any]:
    """Everything the series' page and API show, from its finished matches."""
    played = games(series)
    return {
        "games": len(played),
        "players": player_results(played),
        "head_to_head": head_to_head(played),
        "strengths": strengths(played),
        "test": test_results(series),
    }
