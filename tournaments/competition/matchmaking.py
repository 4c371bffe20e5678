"""Who plays whom in a ladder round: pure functions over plain data (docs/ladders.md).

A bot far less certain than the field (a newcomer) is *placing*: it gets the
first tables, filled at random from the few settled bots rated nearest it. Every
other table is seeded with one bot, drawn with a weight that rises with its
uncertainty and falls with its recent games, and filled at random from a window
of the bots whose ratings are nearest the seed's. The randomness is on purpose:
always grouping the closest ratings (or Swiss-style pairing) let the same bots
meet again and again and froze the ladder's order in simulation.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Entrant:
    """A ladder member as matchmaking sees it."""

    player: str
    rating: float
    """Mean on the Elo-like scale."""
    deviation: float
    recent_games: int = 0
    """Games in the recent window (e.g. the last day), which also enforces the daily cap."""


@dataclass(frozen=True)
class Settings:
    seats: int
    games_per_day: int = 200
    """No bot is seated once it has played this many games in the recent window."""
    window: int = 6
    """How many nearest-rated bots (besides the seed) a table is filled from."""
    tables: int | None = None
    """Tables per round (None: as many as the free bots can fill)."""
    duplicate: bool = True
    """Play each table once per seat rotation of the same deal."""
    placement_factor: float = 1.5
    """A bot whose deviation is over this many times the field's median is *placing*."""
    placement_window: int = 4
    """A placing bot's table is filled at random from this many settled bots nearest it."""


def seed_weight(entrant: Entrant) -> float:
    """A seed is drawn with this weight: uncertain and rested bots first, no bot ever never."""
    return (1.0 + entrant.deviation) / (1.0 + entrant.recent_games)


def games_per_table(settings: Settings) -> int:
    return settings.seats if settings.duplicate else 1


def placing(entrants: Sequence[Entrant], settings: Settings) -> list[Entrant]:
    """The bots much less certain than the field (a newcomer), least certain first."""
    if not entrants:
        return []
    limit = settings.placement_factor * statistics.median(e.deviation for e in entrants)
    found = [e for e in entrants if e.deviation > limit]
    return sorted(found, key=lambda e: (-e.deviation, e.player))


def _seat(table: list[Entrant], rng: random.Random, free: list[Entrant]) -> list[Entrant]:
    """Shuffle the seats; returns the bots still free."""
    rng.shuffle(table)
    chosen = {e.player for e in table}
    return [e for e in free if e.player not in chosen]


def round_tables(
    entrants: Sequence[Entrant], settings: Settings, rng: random.Random
) -> list[list[str]]:
    """The tables of one round, each a list of players in seat order; a bot sits once a round."""
    per_table = games_per_table(settings)
    free = [e for e in entrants if e.recent_games + per_table <= settings.games_per_day]
    wanted = len(free) // settings.seats
    if settings.tables is not None:
        wanted = min(wanted, settings.tables)
    tables: list[list[str]] = []
    # Placement first: a placing bot gets a table of settled bots drawn from those
    # nearest its current rating, where each result says most about where it belongs.
    uncertain = placing(free, settings)
    unsure = {e.player for e in uncertain}
    for newcomer in uncertain:
        settled = [e for e in free if e.player not in unsure]
        if len(tables) >= wanted or len(settled) < settings.seats - 1:
            break
        settled.sort(key=lambda e: (abs(e.rating - newcomer.rating), e.player))
        window = settled[: max(settings.placement_window, settings.seats - 1)]
        table = [newcomer, *rng.sample(window, settings.seats - 1)]
        free = _seat(table, rng, free)
        tables.append([e.player for e in table])
    while len(tables) < wanted and len(free) >= settings.seats:
        seed = rng.choices(free, weights=[seed_weight(e) for e in free])[0]
        others = [e for e in free if e is not seed]
        others.sort(key=lambda e: (abs(e.rating - seed.rating), e.player))
        window = others[: max(settings.window, settings.seats - 1)]
        table = [seed, *rng.sample(window, settings.seats - 1)]
        free = _seat(table, rng, free)
        tables.append([e.player for e in table])
    return tables


def rotations(table: Sequence[str], duplicate: bool = True) -> list[list[str]]:
    """A duplicate set: the same deal once per seat rotation, so each bot holds each seat once."""
    if not duplicate:
        return [list(table)]
    return [[*table[r:], *table[:r]] for r in range(len(table))]
