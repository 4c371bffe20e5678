"""What the tests need beside the tests: the project's folder, a process harness, a third game of
their own (games/highcard).

Importing this package imports nothing else, so a unit-tier test may take ROOT from here without
loading the process harness (tests/support/processes.py) or Django.
"""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
"""The project's folder (the one holding games/, tests/ and pyproject.toml)."""

MEASURED = ("elapsed_ms", "bank_ms")
"""A bot verdict's timings: the move's measured time and what is left of the bot's time bank
(a move over its time on a loaded machine draws on it: 8,201 ms of 10,000 left in one run beside a
second copy of the suite, 2026-12-04). Two plays of one match agree on everything else."""


def untimed(payload: Mapping[str, Any]) -> dict[str, Any]:
    """``payload`` without the timings (MEASURED) that no two plays of a match share."""
    return {k: v for k, v in payload.items() if k not in MEASURED}
