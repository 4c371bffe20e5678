"""High Card's built-in bots, found through the registry (``GameInfo.builtin_bots``)."""

BUILTIN: dict[str, str] = {
    "random": "tests.support.games.highcard.bots.random_legal",
    "greedy": "tests.support.games.highcard.bots.greedy",
}
