"""Replay reads that can never change, kept in the cache (Redis) once computed.

A stream is append-only, so whatever is computed from its first N events alone is
fixed for good: the state at step N through one view, a block of events as one
``Sight`` sees them once the block is full or the match is over, the narrated log of
a match that is over. Replays are what the site and the API read most, and folding
and narrating them is most of a request's CPU (docs/reliability.md, Load), so each
is computed once and then read back.

Every key names what decides the value, and nothing else may: the match, the step
or range, and the view or sight. Whether a duplicate deal is over is part of the sight (its
cards, its seed), so a block kept for a finished match whose set still plays is never the one
served once the set is over; a state or board is keyed by its view alone, since what a view
shows of one step never changes: only who may ask for it does (``visibility.may_see``). Who may ask is checked before a read reaches here
(``tournaments.play.visibility``), so a cached value is only ever handed to a caller
allowed to see it. Every key starts with the game's engine version (as snapshots do) and
``VERSION``: bump it when observations, boards, redaction or narration change what they
make of the same events.

When the cache is away the value is computed as if it had never been cached
(logged): a Redis outage makes replays slower, never unavailable.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from django.core.cache import cache
from redis.exceptions import RedisError

from games.engine.registry import get
from tournaments.play.models import Match
from tournaments.play.visibility import Sight, View

log = logging.getLogger(__name__)

T = TypeVar("T")

CACHE_DOWN = (RedisError, OSError)
"""What a cache that is away raises (replays are then computed, the rate limits fail open)."""

VERSION = 5
"""2: a sight names whether it shows the seed (a duplicate deal's finished match hides it).
3: a log's lines are ``tournaments.site.replay.LogLine``, pickled by their module's path (issue 22
moved it from ``tournaments.replay``: a value stored before would not load).
4: boards give each card its value and effect, and a person's verdicts read as a person's
(issue 24).
5: a log's lines are ``tournaments.play.selectors.replay.LogLine`` (moved from
``tournaments.site.replay`` when the replay reads joined play's selectors)."""
TIMEOUT = 24 * 3600
"""Seconds a value stays: only so that a replay nobody reads any more leaves the cache."""


@dataclass(frozen=True)
class Keyed:
    """What a key names of a match: its id and its game. A reader that has only these (the
    settled reads' header) keys by it instead of making a Match row, which only the lifecycle
    makes."""

    pk: Any
    game: str


def _prefix(match: Match | Keyed) -> str:
    """What every key starts with: this module's version and the game's engine version, so a
    release whose rules fold the same events differently reads none of the old values."""
    return f"replay:{VERSION}:{get(match.game).rules.engine_version}:{match.pk}"


def _sight_key(sight: Sight) -> str:
    cards = "all" if sight.cards is None else ".".join(map(str, sorted(sight.cards)))
    logs = ".".join(map(str, sorted(sight.logs)))
    return f"c{cards}-l{logs}-e{int(sight.reads_error)}-s{int(sight.seed)}"


def state_key(match: Match | Keyed, step: int, view: View) -> str:
    return f"{_prefix(match)}:state:{step}:{view.name}"


def folded_key(match: Match | Keyed, first: int) -> str:
    """A finished match's whole states (``rules.dump``) in the block of steps from ``first``,
    compressed together, kept by the viewer's whole-match fold (tournaments/play/selectors/replay.py:
    ``FOLDED_BLOCK``, ``FOLDED_SECONDS``). Named apart from the one-state-a-key values it
    replaced (``folded:<step>``), which a process of the release before may still write."""
    return f"{_prefix(match)}:folded-block:{first}"


def board_key(match: Match | Keyed, step: int, view: View) -> str:
    return f"{_prefix(match)}:board:{step}:{view.name}"


def labels_key(match: Match, seats: int) -> str:
    return f"{_prefix(match)}:labels:{seats}"


def events_key(match: Match | Keyed, sight: Sight, block: int) -> str:
    return f"{_prefix(match)}:events:{block}:{_sight_key(sight)}"


def log_key(match: Match | Keyed, sight: Sight) -> str:
    return f"{_prefix(match)}:log:{_sight_key(sight)}"


AWAY_SECONDS = 15.0
"""After the cache fails once, this process computes without it for this long: a Redis that
hangs costs one timeout, not one per value (the socket timeout is a second, settings.CACHES)."""

_away_until = 0.0


def _usable() -> bool:
    return time.monotonic() >= _away_until


usable = _usable
"""Whether this process still asks the cache (the web's other caches of Redis follow it too:
tournaments/site/settled_reads.py, tournaments/site/api/token_cache.py)."""


def _failed(what: str, exc: Exception) -> None:
    global _away_until
    _away_until = time.monotonic() + AWAY_SECONDS
    log.warning(
        "replay cache unavailable, %s; computing without it for %.0f s: %s", what, AWAY_SECONDS, exc
    )


failed = _failed


def read_many(keys: Sequence[str], what: str) -> dict[str, Any] | None:
    """The values stored under ``keys``, in one round trip; None when the cache is away, which is
    logged as ``what`` (what the caller does without it) and leaves this process computing
    without the cache for ``AWAY_SECONDS``. The web's caches of Redis (the token lists, the
    settled reads, the token cache) read their keys through it and render when it gives None."""
    try:
        return cache.get_many(list(keys))
    except CACHE_DOWN as exc:
        _failed(what, exc)
        return None


def remember(
    key: str,
    compute: Callable[[], T],
    *,
    keep: Callable[[T], bool] | None = None,
    timeout: float = TIMEOUT,
) -> T:
    """The value stored under ``key``, or ``compute()``'s, stored (for ``timeout`` seconds) if
    ``keep`` allows it."""
    return remember_many([(key, compute)], keep=keep, timeout=timeout)[0]


def remember_many(
    wanted: Sequence[tuple[str, Callable[[], T]]],
    *,
    keep: Callable[[T], bool] | None = None,
    timeout: float = TIMEOUT,
) -> list[T]:
    """Each key's stored value, or its ``compute()``'s: one round trip to read them all and one
    to store those ``keep`` allows."""
    found: dict[str, Any] = {}
    if _usable():
        found = read_many([key for key, _ in wanted], f"reading {wanted[0][0]}") or {}
    values: list[T] = []
    fresh: dict[str, T] = {}
    for key, compute in wanted:
        if key in found:
            values.append(found[key])
            continue
        value = compute()
        values.append(value)
        if keep is None or keep(value):
            fresh[key] = value
    if fresh and _usable():
        try:
            cache.set_many(fresh, timeout)
        except CACHE_DOWN as exc:
            _failed(f"keeping {next(iter(fresh))}", exc)
    return values
