"""A seat's log: its start() and end() output is kept, and the match's cap is the sandbox limit."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from games.sandbox import Decision, Limits, SeatController
from games.sandbox.connection import BotConnection
from tests.games.sandbox.conftest import FAST, FakeGame

TALKER = """
import sys

def start(info):
    print("hello from start, seat", info["seat"])

def act(observation, legal):
    print("thinking about turn", observation["turn"], file=sys.stderr)
    return legal["actions"][1]

def end(outcome):
    print("goodbye, ranks", outcome["ranks"])
"""

# Writes ``size`` bytes to stderr at every decision; crashes at every decision when CRASH is set.
FLOOD = """
import sys
SIZE, CRASH = {size}, {crash}

def act(observation, legal):
    sys.stderr.write("x" * (SIZE - 1) + "\\n")
    if CRASH:
        raise RuntimeError("crash after logging")
    return legal["actions"][0]
"""


def controller_for(tmp_path: Path, source: str, limits: Limits) -> SeatController:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.py").write_text(source)
    return SeatController(folder, game="fake", seat=1, seats=2, limits=limits)


def decisions(controller: SeatController, game: FakeGame) -> list[Decision]:
    got = []
    for turn in range(game.turns):
        d = controller.decide(game.observation(turn), game.legal(), default=game.default)
        game.played.append(d.action)
        got.append(d)
    return got


def test_print_in_start_and_end_is_logged(tmp_path: Path, sandbox_ready: None) -> None:
    controller = controller_for(tmp_path, TALKER, FAST)
    try:
        first, second = decisions(controller, FakeGame(turns=2))
        ending = controller.end({"scores": [2.0, 1.0], "ranks": [1, 2]})
    finally:
        controller.close()
    assert [first.verdict.value, second.verdict.value] == ["ok", "ok"]
    # start() ran for the first decision: its output is logged with it, once.
    assert first.stderr.splitlines() == ["hello from start, seat 1", "thinking about turn 0"]
    assert second.stderr.splitlines() == ["thinking about turn 1"]
    assert ending.splitlines() == ["goodbye, ranks [1, 2]"]


def _flooded(
    tmp_path: Path, *, size: int, crash: bool, cap: int, turns: int
) -> tuple[list[Decision], str]:
    limits = replace(FAST, stderr_match_bytes=cap)
    controller = controller_for(tmp_path, FLOOD.format(size=size, crash=crash), limits)
    try:
        got = decisions(controller, FakeGame(turns=turns))
        ending = controller.end(None)
    finally:
        controller.close()
    return got, ending


def _check_capped(got: list[Decision], ending: str, cap: int) -> None:
    logs = [d.stderr for d in got] + [ending]
    notices = [text for text in logs if "log limit" in text]
    assert len(notices) == 1, logs  # said once, not once per later decision
    full = logs.index(notices[0])
    assert all(text == "" for text in logs[full + 1 :])  # nothing after it, not even a notice
    assert notices[0].split("\n[")[-1].startswith(f"log limit of {cap} bytes for this match")
    logged = sum(len(text.split("\n[log limit")[0].encode()) for text in logs)
    assert logged == cap


def test_the_match_log_stops_at_the_sandbox_limit(
    tmp_path: Path, sandbox_ready: Callable[..., None]
) -> None:
    cap = 10_000
    got, ending = _flooded(tmp_path, size=3_000, crash=False, cap=cap, turns=8)
    assert all(d.verdict.value == "ok" for d in got)
    assert [len(d.stderr) for d in got[:3]] == [3_000] * 3  # whole lines below the cap
    _check_capped(got, ending, cap)


def test_the_match_log_cap_holds_across_restarts(tmp_path: Path, sandbox_ready: None) -> None:
    """A bot that crashes restarts with a fresh process: its match log does not start afresh."""
    cap = 5_000
    got, ending = _flooded(tmp_path, size=3_000, crash=True, cap=cap, turns=5)
    assert [d.verdict.value for d in got] == ["crash"] * 3 + ["disqualified"] * 2
    _check_capped(got, ending, cap)


def test_end_output_is_kept_when_the_bot_exits_before_end_is_sent(
    tmp_path: Path, sandbox_ready: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A quick bot can run end() and exit while the platform is still sending ``end``."""
    send, drain = BotConnection.send, BotConnection._drain_stderr
    ending_bots: set[int] = set()

    def sending(self: BotConnection, msg: Any, timeout: float = 0.5) -> None:
        ending_bots.add(id(self))
        send(self, msg, timeout)

    def draining(self: BotConnection) -> None:
        if id(self) in ending_bots and self.proc is not None:
            self.proc.wait(5)  # as if the scheduler ran the bot to its exit first
        drain(self)

    monkeypatch.setattr(BotConnection, "send", sending)
    monkeypatch.setattr(BotConnection, "_drain_stderr", draining)
    controller = controller_for(tmp_path, TALKER, FAST)
    try:
        decisions(controller, FakeGame(turns=1))
        ending = controller.end({"scores": [2.0, 1.0], "ranks": [1, 2]})
    finally:
        controller.close()
    assert ending.splitlines() == ["goodbye, ranks [1, 2]"]
