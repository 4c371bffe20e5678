"""How the ratings name what they rate: a pool (where a rating lives) and a player.

A player is ``"v:<bot version id>"`` or ``"builtin:<name>"``; a pool is ``"ladder:<id>"``,
``"season:<id>"``, or ``"<game>:<seats>"`` for the rated matches outside both.
"""

from __future__ import annotations


def pool_of(*, ladder_id: int | None, season_id: int | None, game: str, seats: int) -> str:
    """Where a rated match's ratings live: its ladder, its season, or the game at that size."""
    if ladder_id is not None:
        return f"ladder:{ladder_id}"
    if season_id is not None:
        return f"season:{season_id}"
    return f"{game}:{seats}"


def player_of(*, bot_version_id: int | None, builtin: str) -> str:
    return f"v:{bot_version_id}" if bot_version_id is not None else f"builtin:{builtin}"


def version_id(player: str) -> int | None:
    return int(player[2:]) if player.startswith("v:") else None
