"""Brexit's built-in bots (docs/builtin-bots.md), found through the registry (``GameInfo.builtin_bots``)."""

BUILTIN: dict[str, str] = {
    "random": "games.brexit.bots.random_legal",
    "greedy": "games.brexit.bots.greedy",
    "search": "games.brexit.bots.search",
    "cautious": "games.brexit.bots.cautious",
    "bold": "games.brexit.bots.bold",
    "quick": "games.brexit.bots.quick",
}
"""Bot name -> module. A module exposes ``act`` and, when tunable, ``make``."""
