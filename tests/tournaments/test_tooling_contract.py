"""The import contract that keeps the tooling (tournaments/bench) out of runtime code lists every
management command but the two that run it: a command added later is held to it too."""

from __future__ import annotations

import tomllib

import pytest

from tests.support import ROOT

pytestmark = pytest.mark.unit

TOOLING_COMMANDS = {"bench", "fuzz"}
"""The commands that run the benchmarks, the load and the fuzzing (they import the tooling)."""


def test_every_runtime_command_is_held_to_the_tooling_contract() -> None:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    [contract] = [c for c in contracts["contracts"] if c["name"].startswith("runtime code never")]
    commands = {
        path.stem
        for path in (ROOT / "tournaments" / "management" / "commands").glob("*.py")
        if path.stem != "__init__"
    }
    listed = {
        module.rsplit(".", 1)[1]
        for module in contract["source_modules"]
        if module.startswith("tournaments.management.commands.")
    }
    assert commands >= TOOLING_COMMANDS
    assert listed == commands - TOOLING_COMMANDS
    assert "tournaments.apps" in contract["source_modules"]
