"""The games as pure rules: plain data and functions, no framework.

Nothing here imports Django, ``replays`` or ``tournaments``; an import-linter
contract in pyproject.toml and ``tests/games/test_purity.py`` enforce it.
"""
