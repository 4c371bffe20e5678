"""Bra$ilis's built-in bots (docs/builtin-bots.md), found through the registry (``GameInfo.builtin_bots``)."""

BUILTIN: dict[str, str] = {
    "random": "games.brasilis.bots.random_legal",
    "greedy": "games.brasilis.bots.greedy",
    "search": "games.brasilis.bots.search",
    "cautious": "games.brasilis.bots.cautious",
    "bold": "games.brasilis.bots.bold",
    "quick": "games.brasilis.bots.quick",
}
"""Bot name -> module. A module exposes ``act`` and, when tunable, ``make``."""
