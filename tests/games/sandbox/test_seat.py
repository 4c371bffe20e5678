"""The strike and disqualification policy of SeatController, on a scripted fake process."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from games.engine import IllegalAction
from games.sandbox import seat as seat_module
from games.sandbox.connection import Exchange
from games.sandbox.limits import Limits
from games.sandbox.player import Sandboxed
from games.sandbox.seat import SeatController
from games.sandbox.verdicts import STRIKES, Verdict

DEFAULT = {"pick": 0}
LEGAL: Any = {"kind": "pick", "actions": [{"pick": 0}, {"pick": 1}], "space": None}


class ScriptedConnection:
    """Replays scripted exchanges: ("ok", action, elapsed) or (Verdict, detail, elapsed)."""

    script: list[tuple[Any, Any, float]] = []
    starts: list[dict[str, Any]] = []
    asked: list[tuple[dict[str, Any], float]] = []

    def __init__(self, bot_dir: Path, limits: Limits, *, mode: str | None = None) -> None:
        self._alive = False

    @property
    def alive(self) -> bool:
        return self._alive

    def start(self, msg: dict[str, Any]) -> Exchange:
        ScriptedConnection.starts.append(msg)
        if self.script and self.script[0][0] == "start-fail":
            _, verdict, _ = self.script.pop(0)
            return Exchange(None, verdict, "failed to start", "", 0.1)
        self._alive = True
        return Exchange({"type": "ready"}, None, "", "", 0.01)

    def ask(self, msg: dict[str, Any], timeout: float) -> Exchange:
        ScriptedConnection.asked.append((msg, timeout))
        kind, what, elapsed = self.script.pop(0)
        if kind == "ok":
            return Exchange(
                {"type": "action", "id": msg["id"], "action": what}, None, "", "", elapsed
            )
        if kind in (Verdict.TIMEOUT, Verdict.CRASH):
            self._alive = False
        return Exchange(None, kind, what, "log", elapsed)

    def send(self, msg: dict[str, Any], timeout: float = 0.5) -> None:
        pass

    def finish(self, end_msg: dict[str, Any], grace: float) -> str:
        self._alive = False
        return ""

    def close(self, grace: float = 0.0) -> None:
        self._alive = False


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> type[ScriptedConnection]:
    monkeypatch.setattr(seat_module, "BotConnection", ScriptedConnection)
    monkeypatch.setattr(seat_module, "require_isolation", lambda: "scripted")
    ScriptedConnection.script, ScriptedConnection.starts, ScriptedConnection.asked = [], [], []
    return ScriptedConnection


def controller(**limits: Any) -> SeatController:
    return SeatController("/nonexistent", game="fake", seat=0, seats=2, limits=Limits(**limits))


def test_ok_plays_the_bots_action(scripted: type[ScriptedConnection]) -> None:
    scripted.script = [("ok", {"pick": 1}, 0.01)]
    got = controller().decide({}, LEGAL, default=DEFAULT)
    assert (got.action, got.verdict, got.stderr) == ({"pick": 1}, Verdict.OK, "")


@pytest.mark.parametrize("verdict", sorted(STRIKES - {Verdict.ILLEGAL_ACTION}))
def test_each_fault_plays_default_and_strikes(
    scripted: type[ScriptedConnection], verdict: Verdict
) -> None:
    scripted.script = [(verdict, "why", 0.01)]
    c = controller()
    got = c.decide({}, LEGAL, default=lambda: dict(DEFAULT))
    assert (got.action, got.verdict, got.detail) == (DEFAULT, verdict, "why")
    assert c.strikes == 1 and not c.disqualified


def test_three_strikes_disqualify_for_the_rest_of_the_match(
    scripted: type[ScriptedConnection],
) -> None:
    scripted.script = [
        ("ok", {"pick": 5}, 0.01),  # illegal via check
        ("ok", {"pick": 1}, 0.01),
        (Verdict.CRASH, "boom", 0.01),
        (Verdict.BAD_OUTPUT, "junk", 0.01),
    ]

    def check(action: dict[str, Any]) -> None:
        if action["pick"] not in (0, 1):
            raise IllegalAction("pick 5 is not legal")

    c = controller()
    got = [c.decide({}, LEGAL, default=DEFAULT, check=check) for _ in range(6)]
    assert [g.verdict for g in got] == [
        Verdict.ILLEGAL_ACTION,
        Verdict.OK,
        Verdict.CRASH,
        Verdict.BAD_OUTPUT,
        Verdict.DISQUALIFIED,
        Verdict.DISQUALIFIED,
    ]
    assert got[0].detail == "pick 5 is not legal"
    assert "disqualified" in got[3].detail
    assert [g.action for g in got] == [DEFAULT, {"pick": 1}, DEFAULT, DEFAULT, DEFAULT, DEFAULT]
    assert c.disqualified and c.strikes == 3
    assert len(scripted.asked) == 4  # a disqualified bot is not asked any more


def test_a_check_that_breaks_on_odd_input_is_still_illegal_action(
    scripted: type[ScriptedConnection],
) -> None:
    scripted.script = [("ok", {"pick": [1]}, 0.01)]

    def check(action: dict[str, Any]) -> None:
        {0: 1}[action["pick"]]  # an engine tripping over a list: TypeError

    got = controller().decide({}, LEGAL, default=DEFAULT, check=check)
    assert got.verdict is Verdict.ILLEGAL_ACTION and got.action == DEFAULT


def test_non_object_action_is_bad_output(scripted: type[ScriptedConnection]) -> None:
    scripted.script = [("ok", [1, 2], 0.01)]
    got = controller().decide({}, LEGAL, default=DEFAULT)
    assert got.verdict is Verdict.BAD_OUTPUT and "JSON object" in got.detail


def test_overruns_consume_the_bank_and_a_timeout_empties_it(
    scripted: type[ScriptedConnection],
) -> None:
    scripted.script = [
        ("ok", DEFAULT, 0.5),
        ("ok", DEFAULT, 1.75),
        ("ok", DEFAULT, 1.0),
        (Verdict.TIMEOUT, "late", 9.0),
        ("ok", DEFAULT, 0.2),
    ]
    c = controller(move_seconds=1.0, bank_seconds=10.0)
    c.decide({}, LEGAL, default=DEFAULT)
    assert c.time_bank == 10.0
    c.decide({}, LEGAL, default=DEFAULT)
    assert c.time_bank == pytest.approx(9.25)
    c.decide({}, LEGAL, default=DEFAULT)
    c.decide({}, LEGAL, default=DEFAULT)
    assert c.time_bank == 0.0
    c.decide({}, LEGAL, default=DEFAULT)
    timeouts = [t for _, t in scripted.asked]
    assert timeouts == pytest.approx([11.0, 11.0, 10.25, 10.25, 1.0])
    assert scripted.asked[1][0]["time_left"] == {"move_seconds": 1.0, "bank_seconds": 10.0}


def test_dead_bot_is_restarted_with_a_count_and_start_failures_strike(
    scripted: type[ScriptedConnection],
) -> None:
    scripted.script = [
        (Verdict.CRASH, "died", 0.01),
        ("start-fail", Verdict.TIMEOUT, 0.0),
        ("ok", DEFAULT, 0.01),
    ]
    c = controller()
    got = [c.decide({}, LEGAL, default=DEFAULT) for _ in range(3)]
    assert [g.verdict for g in got] == [Verdict.CRASH, Verdict.TIMEOUT, Verdict.OK]
    assert [m["restarts"] for m in scripted.starts] == [0, 1, 2]
    assert scripted.starts[0]["protocol"] == 1 and scripted.starts[0]["game"] == "fake"
    assert c.strikes == 2


def test_caller_reported_strike_counts(scripted: type[ScriptedConnection]) -> None:
    c = controller()
    for _ in range(3):
        got = c.strike(Verdict.ILLEGAL_ACTION, "decide refused it", DEFAULT)
    assert got.verdict is Verdict.ILLEGAL_ACTION and c.disqualified


def test_a_resumed_seat_has_the_strikes_and_time_bank_its_last_verdict_left() -> None:
    """A match with a person's seat resumes at each of their decisions: no fresh bank each time."""
    seat = controller(move_seconds=1.0, bank_seconds=10.0)
    seat.resume(2, 7.5)
    assert seat.strikes == 2 and seat.time_bank == 7.5
    seat.resume(0, None)  # no verdict of a sandboxed bot stored yet (or written before banks were)
    assert seat.time_bank == 10.0
    seat.resume(0, 99.0)  # never more than the limits give
    assert seat.time_bank == 10.0
    seat.resume(0, -1.0)
    assert seat.time_bank == 0.0


def test_a_resumed_seat_is_offered_the_bank_that_was_left(
    scripted: type[ScriptedConnection],
) -> None:
    scripted.script = [("ok", {"pick": 1}, 2.5)]
    seat = controller(move_seconds=1.0, bank_seconds=10.0)
    seat.resume(0, 7.0)
    seat.decide({}, LEGAL, default=DEFAULT)
    message, deadline = scripted.asked[-1]
    assert message["time_left"]["bank_seconds"] == 7.0 and deadline == pytest.approx(8.0)
    assert seat.time_bank == pytest.approx(5.5)


def test_the_bank_a_sandboxed_move_reports_is_what_live_play_left(
    scripted: type[ScriptedConnection],
) -> None:
    """What the verdict stores (and a resume restores): after a start fault nothing was spent;
    after an action the engine refused, the reply's overrun was."""
    scripted.script = [("start-fail", Verdict.TIMEOUT, 0.0), ("ok", {"pick": 9}, 3.0)]
    player = Sandboxed(controller(move_seconds=1.0, bank_seconds=10.0))
    rules: Any = type(
        "R",
        (),
        {
            "observe": lambda self, s, seat: {},
            "legal": lambda self, s, seat: LEGAL,
            "default_action": lambda self, s, seat: DEFAULT,
            "check": lambda self, s, seat, a: None,
        },
    )()
    first = player.move(rules, None, 0, random.Random(0))
    assert first.verdict == "timeout" and first.bank == 10.0
    second = player.move(rules, None, 0, random.Random(0))
    assert second.verdict == "ok" and second.bank == pytest.approx(8.0)
    refused = player.strike("illegal_action", "no such card", DEFAULT)
    assert refused.bank == pytest.approx(8.0)
