"""Replay reads that can never change, kept in the cache (Redis) once computed.

A stream is append-only, so whatever is computed from its first N events alone is
fixed for good: the state at step N through one view, a block of events as one
``Sight`` sees them once the block is full or the match is over, the narrated log of
a match that is over. Replays are what the site and the API read most, and folding
and narrating them is most of a request's CPU (docs/reliability.md, Load), so each
is computed once and then read back.

Every key names what decides the value, and nothing else may: the match, the step
or range, and the view or sight. Who may ask is checked before a read reaches here
(``tournaments.visibility``), so a cached value is only ever handed to a caller
allowed to see it. Every key starts with the game's engine version (as snapshots do) and
``VERSION``: bump it when observations, boards, redaction or narration change what they
make of the same events.

When the cache is away the value is computed as if it had never been cached
(logged): a Redis outage makes replays slower, never unavailable.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from django.core.cache import cache
from redis.exceptions import RedisError

from games.engine.registry import get
from tournaments.models import Match
from tournaments.visibility import Sight, View

log = logging.getLogger(__name__)

T = TypeVar("T")

CACHE_DOWN = (RedisError, OSError)
"""What a cache that is away raises (replays are then computed, the rate limits fail open)."""

VERSION = 1
TIMEOUT = 24 * 3600
"""Seconds a value stays: only so that a replay nobody reads any more leaves the cache."""


def _prefix(match: Match) -> str:
    """What every key starts with: this module's version and the game's engine version, so a
    release whose rules fold the same events differently reads none of the old values."""
    return f"replay:{VERSION}:{get(match.game).rules.engine_version}:{match.pk}"


def _sight_key(sight: Sight) -> str:
    cards = "all" if sight.cards is None else ".".join(map(str, sorted(sight.cards)))
    logs = ".".join(map(str, sorted(sight.logs)))
    return f"c{cards}-l{logs}-e{int(sight.reads_error)}"


def state_key(match: Match, step: int, view: View) -> str:
    return f"{_prefix(match)}:state:{step}:{view.name}"


def board_key(match: Match, step: int, view: View) -> str:
    return f"{_prefix(match)}:board:{step}:{view.name}"


def labels_key(match: Match, seats: int) -> str:
    return f"{_prefix(match)}:labels:{seats}"


def events_key(match: Match, sight: Sight, block: int) -> str:
    return f"{_prefix(match)}:events:{block}:{_sight_key(sight)}"


def log_key(match: Match, sight: Sight) -> str:
    return f"{_prefix(match)}:log:{_sight_key(sight)}"


def remember(key: str, compute: Callable[[], T], *, keep: Callable[[T], bool] | None = None) -> T:
    """The value stored under ``key``, or ``compute()``'s, stored if ``keep`` allows it."""
    try:
        found = cache.get(key)
    except CACHE_DOWN as exc:
        log.warning("replay cache unavailable, computing %s: %s", key, exc)
        return compute()
    if found is not None:
        return found  # type: ignore[no-any-return]
    value = compute()
    if keep is None or keep(value):
        try:
            cache.set(key, value, TIMEOUT)
        except CACHE_DOWN as exc:
            log.warning("replay cache unavailable, %s not kept: %s", key, exc)
    return value
