"""``backroom play`` and ``simulate`` on this machine, no service running (the unit tier: built-in
bots play in-process; tests/cli/test_local_sandbox.py seats a bot on disk in the sandbox)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backroom_cli.exits import Exit
from backroom_cli.main import main
from games.engine.match import replay
from games.engine.platform_events import game_events
from games.engine.registry import get

SEATS = ["--seat", "builtin:greedy", "--seat", "builtin:random", "--seat", "builtin:cautious"]


def test_play_writes_the_match_document(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "match.json"
    assert main(["play", "--game", "brexit", *SEATS, "--seed", "7", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["format"] == "backroom-match/1"
    assert doc["match"]["seed"] == 7 and doc["match"]["status"] == "finished"
    rules = get("brexit").rules
    events = game_events({k: v for k, v in e.items() if k != "version"} for e in doc["events"])
    assert rules.outcome(replay(rules, events)) == doc["match"]["outcome"]
    printed = capsys.readouterr().out
    assert "seat 0  rank " in printed and f"{len(doc['events'])} events" in printed


def test_play_json_says_the_outcome(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--game", "brasilis", *SEATS, "--seed", "3", "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["status"] == "finished" and said["seed"] == 3 and said["reason"] is None
    assert len(said["outcome"]["ranks"]) == 3
    assert said["events"] > 10


def test_an_aborted_match_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--game", "brexit", *SEATS, "--seed", "7", "--max-steps", "3"]) == 1
    assert "the match was aborted: " in capsys.readouterr().err


@pytest.mark.parametrize(
    ("seats", "said"),
    [
        (["--seat", "builtin:nobody", "--seat", "builtin:random"], "unknown built-in bot 'nobody'"),
        (["--seat", "missing.py", "--seat", "builtin:random"], "--seat missing.py: no such file"),
        (["--seat", "builtin:random"], "brexit needs 2 to"),
    ],
)
def test_bad_seats_exit_2(seats: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--game", "brexit", *seats]) == Exit.USAGE
    assert said in capsys.readouterr().err


def test_bad_options_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--game", "brexit", *SEATS, "--options", "{nope"]) == Exit.USAGE
    assert "--options: " in capsys.readouterr().err


SIMULATE = [
    "simulate",
    "--game",
    "brexit",
    "--seat",
    "greedy",
    "--seat",
    "random",
    "--seat",
    "random",
]


def test_simulate_prints_win_rates_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*SIMULATE, "--games", "4", "--no-progress", "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["games"] == 4 and {b["bot"] for b in said["bots"]} == {"greedy", "random"}


def test_simulate_shows_progress_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*SIMULATE, "--games", "3"]) == 0
    out, err = capsys.readouterr()
    assert "3/3" in err and "brexit: 3 games, seats greedy random random" in out


def test_simulate_refuses_zero_games(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--game", "brexit", "--seat", "greedy", "--seat", "random"]
    assert main([*argv, "--games", "0"]) == Exit.USAGE
    assert "--games must be at least 1" in capsys.readouterr().err
