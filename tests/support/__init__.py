"""What the tests need beside the tests: the project's folder, a process harness, a third game of
their own (games/highcard).

Importing this package imports nothing else, so a unit-tier test may take ROOT from here without
loading the process harness (tests/support/processes.py) or Django.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The project's folder (the one holding games/, tests/ and pyproject.toml)."""
