"""Brexit: The Real Deal, as pure rules: the rulebook plus rulings B-1..B-31.

Each ruling is stated in docs/games/brexit.md.

The engine is wired in :mod:`games.brexit.rules`; card data lives in ``cards.json``.
"""
