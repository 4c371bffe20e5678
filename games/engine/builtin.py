"""The built-in bots every game offers, by name: trusted code that plays in-process.

``random`` is the game's random legal player, ``greedy`` a one-step heuristic,
``search`` a determinized Monte Carlo player over the greedy policy, ``cautious``
and ``bold`` the one-step heuristic with a defensive and an aggressive style, and
``quick`` the search with a fixed number of rollouts a decision and no clock
(docs/builtin-bots.md). Each game lists its own in ``games/<name>/bots/__init__.py``
(``BUILTIN``), found through the registry; bot modules are imported lazily.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from games.engine.match import Player
from games.engine.registry import get


def builtin_names(game: str) -> tuple[str, ...]:
    """The built-in bots ``game`` offers, by name (the one list: the platform reads it here)."""
    return tuple(get(game).builtin_bots)  # get raises KeyError naming the known games


def make_player(
    game: str,
    name: str,
    *,
    budget_ms: float | None = None,
    seed: int = 0,
    iterations: int | None = None,
) -> Player:
    """An in-process player for ``game`` called ``name``.

    ``budget_ms`` and ``iterations`` only matter to players that search: with
    ``iterations`` alone the player is deterministic (no clock), with neither
    it uses its module's default time budget.
    """
    bots = get(game).builtin_bots  # get raises KeyError naming the known games
    if name not in bots:
        raise KeyError(f"unknown bot {name!r} for {game}; built-in bots: {', '.join(sorted(bots))}")
    module = importlib.import_module(bots[name])
    make: Callable[..., Player] | None = getattr(module, "make", None)
    if make is None:
        act: Player = module.act
        return act
    kwargs: dict[str, Any] = {"budget_ms": budget_ms, "seed": seed, "iterations": iterations}
    return make(**kwargs)
