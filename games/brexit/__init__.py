"""Brexit: The Real Deal, as pure rules (rulebook plus rulings B-1..B-30).

The engine is wired in :mod:`games.brexit.rules`; card data lives in ``cards.json``.
"""
