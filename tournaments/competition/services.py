"""Competition's writes: what the site asks of competition (a series or an A/B test started or
cancelled), keyword-only, raising play's ``Invalid`` with one message list per input field.

The play of a series (its deals queued within the owner's allowance, an A/B test's verdict)
is tournaments/competition/series.py, run by the beat and once at creation; ladder rounds and
seasons' state changes are ladders.py and seasons.py (the Celery tasks and the admin's staff
actions call them).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction

from games.engine.errors import BadOptions
from games.engine.registry import GAMES
from tournaments.competition import series as series_play
from tournaments.competition.models import Series
from tournaments.play import services
from tournaments.play.services import Invalid
from tournaments.rating import sprt

MAX_DEALS = 500
"""A plain series' most deals (each is played once per seat rotation)."""
MAX_PAIRS = 2000
"""An A/B test's largest pairs cap."""


# --- a series or an A/B test --------------------------------------------------------------------


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
        series_play.advance(series)
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


def cancel_series(*, series: Series) -> Series:
    """Stop a running series: its queued matches are cancelled, those playing finish."""
    with transaction.atomic():
        series = Series.objects.select_for_update().get(pk=series.pk)
        if series.state != Series.State.RUNNING:
            raise Invalid({"state": f"the series is {series.state}, not running"})
        series_play.end_series(series, Series.State.CANCELLED)
    return series
