"""The match loop's contract: stage every event once, flush in order, abort on failure, and no bot's
action, however malformed, can abort a match."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import orjson
import pytest

from games.brexit.rules import BrexitRules
from games.engine import driver as driver_module
from games.engine.builtin import make_player
from games.engine.decision import Move
from games.engine.driver import Flush, InProcess, MatchDriver, MemorySink, SeatStats
from games.engine.errors import IllegalAction
from games.engine.match import replay
from games.engine.platform_events import game_events
from games.engine.registry import get
from games.engine.rules import Rules
from games.engine.types import Action, Event, Outcome, Seat


class RecordingSink(MemorySink):
    """A MemorySink that also remembers what was staged, and whether it was aborted."""

    def __init__(self) -> None:
        super().__init__()
        self.staged: list[Event] = []
        self.aborted = False

    def stage(self, events: Sequence[Event], after_version: int) -> None:
        assert after_version == len(self.staged), "staged out of order"
        self.staged.extend(events)

    def abort(self) -> None:
        self.aborted = True

    def __call__(self, flush: Flush) -> None:
        # Everything a flush makes durable was staged before it, and nothing more.
        assert self.staged[len(self.events) :] == flush.events
        super().__call__(flush)


def play(game: str, sink: RecordingSink, players: list[Any], flush_every: int = 32) -> None:
    MatchDriver(
        get(game).rules,
        seats=len(players),
        seed=3,
        options={},
        players=players,
        sink=sink,
        flush_every=flush_every,
    ).run()


@pytest.mark.parametrize("game", ["brexit", "brasilis"])
def test_every_event_is_staged_once_before_the_flush_that_makes_it_durable(game: str) -> None:
    sink = RecordingSink()
    play(game, sink, [InProcess(make_player(game, "random", seed=s)) for s in range(4)])
    assert sink.flushes > 1
    assert sink.staged == sink.events
    assert sink.events[-1]["type"] == "match_finished"
    assert not sink.aborted


def test_a_failing_player_aborts_the_sink_and_keeps_what_was_flushed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Boom(Exception):
        pass

    monkeypatch.setattr(driver_module, "STAGE_EVERY", 1)
    sink = RecordingSink()
    bot = make_player("brexit", "random", seed=1)
    moves = 0

    def fail_later(state: Any, seat: Seat, rng: random.Random) -> Any:
        nonlocal moves
        moves += 1
        if moves >= 20 and len(sink.staged) > len(sink.events):  # between two flushes
            raise Boom
        return bot(state, seat, rng)

    with pytest.raises(Boom):
        play("brexit", sink, [InProcess(fail_later)] * 4, flush_every=16)
    assert sink.aborted
    assert 0 < len(sink.events) < len(sink.staged)  # the staged tail was never flushed


class Scripted:
    """An external seat (as a sandboxed bot is) that plays the random bot, except at scripted decisions.

    It does not call the game's check first, as the sandbox does, so what it sends reaches decide().
    """

    external = True

    def __init__(self, game: str, seed: int, script: dict[int, Any]) -> None:
        self.bot = make_player(game, "random", seed=seed)
        self.script = script
        self.decisions = 0
        self.strikes = 0
        self.refusals: list[str] = []

    def move(self, rules: Rules[Any], state: Any, seat: Seat, rng: random.Random) -> Move:
        self.decisions += 1
        if self.decisions in self.script:
            return Move(self.script[self.decisions])
        return Move(self.bot(state, seat, rng))

    def strike(self, verdict: str, detail: str, default: Action) -> Move:
        self.strikes += 1
        self.refusals.append(detail)
        return Move(default, verdict, detail)

    def close(self, outcome: Outcome | None) -> str:
        return ""


class FailingAfterFolding(BrexitRules):
    """Brexit, except that an action holding "boom" folds the default action's events, then raises.

    This is the worst a buggy engine can do with a bot's action: fail after changing the state.
    """

    def __init__(self, error: Exception) -> None:
        self.error = error

    def decide(self, state: Any, seat: Seat, action: Action, rng: random.Random) -> list[Event]:
        if "boom" in action:
            super().decide(state, seat, self.default_action(state, seat), rng)
            raise self.error
        return super().decide(state, seat, action, rng)


def scripted_match(
    rules: Rules[Any], game: str, script: dict[int, Any]
) -> tuple[RecordingSink, list[Scripted]]:
    sink = RecordingSink()
    players = [Scripted(game, seed=s, script=script if s == 1 else {}) for s in range(3)]
    MatchDriver(rules, seats=3, seed=5, options={}, players=players, sink=sink, flush_every=8).run()
    return sink, players


def default_at(rules: Rules[Any], game: str, decision: int) -> list[Event]:
    """The game events of the same match in which seat 1 played the default at ``decision``."""

    class Default(Scripted):
        def move(self, rules: Rules[Any], state: Any, seat: Seat, rng: random.Random) -> Move:
            if self.decisions + 1 == decision:
                self.decisions += 1
                return Move(rules.default_action(state, seat))
            return super().move(rules, state, seat, rng)

    sink = RecordingSink()
    players = [(Default if s == 1 else Scripted)(game, seed=s, script={}) for s in range(3)]
    MatchDriver(rules, seats=3, seed=5, options={}, players=players, sink=sink, flush_every=8).run()
    return list(game_events(sink.events))


@pytest.mark.parametrize(
    "error", [TypeError("unhashable type: 'list'"), IllegalAction("refused too late")]
)
def test_an_action_the_engine_fails_on_after_folding_is_an_illegal_action_on_the_rebuilt_state(
    error: Exception,
) -> None:
    rules = FailingAfterFolding(error)
    sink, players = scripted_match(rules, "brexit", {3: {"boom": True}})
    assert sink.events[-1]["type"] == "match_finished"
    assert not sink.aborted
    assert players[1].strikes == 1 and str(error) in players[1].refusals[0]
    verdicts = [e["payload"] for e in sink.events if e["type"] == "bot_verdict" and e["actor"] == 1]
    assert [v["verdict"] for v in verdicts].count("illegal_action") == 1
    # The failed attempt left no trace: the match is the one where seat 1 played the default.
    assert list(game_events(sink.events)) == default_at(rules, "brexit", 3)
    assert replay(rules, game_events(sink.events)) is not None


@pytest.mark.parametrize(
    ("game", "junk"),
    [
        ("brexit", {"place": [{"card": ["NEG_01"], "slot": True}]}),
        ("brexit", {"place": {"card": "NEG_01"}}),
        ("brasilis", {"play": ["P_01"], "target": 1.0}),
        ("brasilis", {"give_to": True}),
        ("brasilis", {"propose": {"to": 0, "cards": [{"id": "P_01"}]}}),
    ],
)
def test_a_malformed_action_is_a_strike_and_the_match_goes_on(game: str, junk: Any) -> None:
    rules = get(game).rules
    script = {n: junk for n in (2, 4)}
    sink, players = scripted_match(rules, game, script)
    assert sink.events[-1]["type"] == "match_finished"
    assert players[1].strikes == 2
    assert all(r.startswith("malformed ") for r in players[1].refusals), players[1].refusals
    final = replay(rules, game_events(sink.events))
    assert rules.outcome(final) == sink.events[-1]["payload"]["outcome"]


def test_a_time_limit_is_said_in_the_owners_words() -> None:
    from games.engine.driver import MatchLimits

    assert "for 30 minutes," in MatchLimits(max_seconds=1800).time_reason()
    assert "for 45 seconds," in MatchLimits(max_seconds=45).time_reason()


class Banked(Scripted):
    """An external seat whose every answer spends a tenth of a second of its time bank."""

    def __init__(self, game: str, seed: int, script: dict[int, Any]) -> None:
        super().__init__(game, seed, script)
        self.bank = 10.0

    def move(self, rules: Rules[Any], state: Any, seat: Seat, rng: random.Random) -> Move:
        self.bank = max(0.0, self.bank - 0.1)
        return super().move(rules, state, seat, rng)._replace(bank=self.bank)

    def strike(self, verdict: str, detail: str, default: Action) -> Move:
        return super().strike(verdict, detail, default)._replace(bank=self.bank)


def resumed_stats(stored: list[Event], *, seed: int) -> list[SeatStats]:
    """The seats' statistics of a three-seat Brexit match resumed from ``stored``."""
    players = [Scripted("brexit", seed=s, script={}) for s in range(3)]
    resumed = MatchDriver(
        get("brexit").rules,
        seats=3,
        seed=seed,
        options={},
        players=players,
        stored=stored,
        sink=RecordingSink(),
    )
    return resumed.stats


def test_verdicts_carry_the_time_bank_left_and_a_resumed_driver_reads_it_back() -> None:
    """A resumed seat goes on with the bank its last verdict left (tournaments.play.runner)."""
    sink = RecordingSink()
    players = [
        Banked("brexit", seed=s, script={3: {"junk": True}} if s == 1 else {}) for s in range(3)
    ]
    MatchDriver(get("brexit").rules, seats=3, seed=5, options={}, players=players, sink=sink).run()
    verdicts = [e for e in sink.events if e["type"] == "bot_verdict"]
    assert {v["payload"]["verdict"] for v in verdicts} >= {"ok", "illegal_action"}
    stats = resumed_stats(sink.events, seed=5)
    for seat, player in enumerate(players):
        mine = [v["payload"] for v in verdicts if v["payload"]["seat"] == seat]
        assert mine[-1]["bank_ms"] == int(player.bank * 1000)
        assert stats[seat].bank_ms == mine[-1]["bank_ms"]
    # Only the owner's view holds it, with the time and the details.
    assert all("bank_ms" not in (v["redacted"] or {}) for v in verdicts)


def test_a_verdict_without_a_bank_leaves_none_to_resume_from() -> None:
    """Events written before the bank was stored, or a person's seat: a full bank on resume."""
    sink = RecordingSink()
    play("brexit", sink, [Scripted("brexit", seed=s, script={}) for s in range(3)])
    assert sink.events and all(s.bank_ms is None for s in resumed_stats(sink.events, seed=3))


class Unprintable(Scripted):
    """An external seat whose every text holds what Postgres (NUL) and orjson (a lone surrogate)
    refuse: a player the sandbox did not clean, or a refusal quoting the action."""

    def move(self, rules: Rules[Any], state: Any, seat: Seat, rng: random.Random) -> Move:
        move = super().move(rules, state, seat, rng)
        return move._replace(detail="why \x00\ud800", stderr="log \x00\ud800")

    def close(self, outcome: Outcome | None) -> str:
        return "end \x00\ud800"


def test_every_text_of_a_player_reaches_the_events_and_logs_storable() -> None:
    rules = FailingAfterFolding(IllegalAction("refused \x00 here"))
    sink = RecordingSink()
    players = [
        Unprintable("brexit", seed=s, script={3: {"boom": True}} if s == 1 else {})
        for s in range(3)
    ]
    MatchDriver(rules, seats=3, seed=5, options={}, players=players, sink=sink).run()
    assert sink.events[-1]["type"] == "match_finished"
    details = {e["payload"]["detail"] for e in sink.events if e["type"] == "bot_verdict"}
    assert details == {"why \\x00\\ud800", "refused \\x00 here"}
    assert {text for _seat, _step, text in sink.logs} == {"log \\x00\\ud800", "end \\x00\\ud800"}
    orjson.dumps([sink.events, sink.logs])  # a lone surrogate would raise
