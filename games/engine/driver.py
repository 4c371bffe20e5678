"""The match loop: ask whoever is pending, apply, and hand events to a sink at durability points.

One loop serves every way a match is played: by a Celery worker into Postgres
(tournaments/play/runner.py), locally by ``manage.py play``, and in memory by the
benchmarks. The sink decides where events go; the loop decides when: after
every decision of an external (sandboxed) bot, whose time is expensive to lose,
and otherwise every ``flush_every`` events, never once per event. A crash loses
only the steps since the last flush, which a resumed match plays again with
the same random draws (every generator is derived from the seed and counts folded from the
events: games/engine/rng.py). Each decision becomes events through ``decision.take``, the
function a person's action taken through the API uses too.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, NoReturn, Protocol

from games.engine.decision import Move, bank_ms, refusal, take
from games.engine.match import replay
from games.engine.platform_events import BOT_VERDICT, finished_event, game_events
from games.engine.rng import bot_rng
from games.engine.rules import Rules, decisions_made
from games.engine.storable import storable
from games.engine.types import Action, Event, Outcome, Pending, Seat


class SeatPlayer(Protocol):
    """Who plays one seat: a trusted in-process bot or a sandboxed upload."""

    external: bool
    """True for sandboxed bots: their decisions are recorded as verdict events."""

    def move(self, rules: Rules[Any], state: Any, seat: Seat, rng: random.Random) -> Move | None:
        """The seat's answer; None when its player answers later (a person): the match
        suspends once no pending seat can move (see Suspended)."""
        ...

    def strike(self, verdict: str, detail: str, default: Action) -> Move:
        """Count a fault found after move() (the engine refused the action)."""
        ...

    @property
    def strikes(self) -> int: ...

    def close(self, outcome: Outcome | None) -> str:
        """Tell the player the match is over and stop it; returns what it logged while ending.

        Called once the game has ended (and again, harmlessly, if the match stops early).
        """
        ...


@dataclass
class InProcess:
    """A trusted built-in bot: ``act(state, seat, rng) -> action``."""

    act: Callable[[Any, Seat, random.Random], Action]
    external: bool = False
    strikes: int = 0

    def move(self, rules: Rules[Any], state: Any, seat: Seat, rng: random.Random) -> Move:
        return Move(self.act(state, seat, rng))

    def strike(self, verdict: str, detail: str, default: Action) -> Move:
        raise RuntimeError(f"a built-in bot played an illegal action: {detail}")

    def close(self, outcome: Outcome | None) -> str:
        return ""


@dataclass
class SeatStats:
    verdicts: dict[str, int] = field(default_factory=dict)
    strikes: int = 0
    time_used_ms: int = 0
    bank_ms: int | None = None
    """The time bank its last verdict left (None: no verdict said): a resumed seat goes on with it."""

    def count(self, move: Move, strikes: int) -> None:
        self.verdicts[move.verdict] = self.verdicts.get(move.verdict, 0) + 1
        self.strikes = strikes
        self.time_used_ms += int(move.elapsed * 1000)
        if move.bank is not None:
            self.bank_ms = bank_ms(move.bank)


@dataclass
class Flush:
    """What the sink must make durable, all or nothing."""

    events: list[Event]
    expected_version: int
    logs: list[tuple[Seat, int, str]]
    stats: list[SeatStats]
    outcome: Outcome | None
    """Set on the last flush, whose final event is the match's result."""


class Sink(Protocol):
    """Where a match's events go; the driver says when they must be durable."""

    def stage(self, events: Sequence[Event], after_version: int) -> None:
        """Events just recorded after ``after_version``, not durable yet.

        A sink may start writing them, so that its store works while the engine
        computes the next events, but they count only once flushed.
        """
        ...

    def __call__(self, flush: Flush) -> None:
        """Make ``flush.events`` (the events staged since the last flush) durable, all or none."""
        ...

    def abort(self) -> None:
        """The match stopped before its next flush: drop what was staged since the last one."""
        ...


FLUSH_EVERY = 256
"""Events buffered at most, when no sandboxed bot forces an earlier flush."""
STAGE_EVERY = 32
"""Events handed to the sink at a time between flushes: a call per decision cost more than it gave."""


DISQUALIFIED = "disqualified"
"""The verdict of a seat that no longer plays (games/sandbox/verdicts.py): its default moves are
counted in its statistics, but only the first one is written as an event and forces a flush."""


class Suspended(Exception):
    """Every pending seat left is one whose player answers later (a person, through the API).

    Raised after what was played is flushed: the caller stores that the match waits for
    ``seats`` and releases the worker; a later run resumes from the stored events.
    """

    def __init__(self, seats: list[Seat], step: int) -> None:
        super().__init__(f"waiting for seats {seats} at step {step}")
        self.seats, self.step = seats, step


class MatchStopped(Exception):
    """A platform limit stopped the match before the game ended; the message says which, for the
    bots' owners (it becomes the aborted match's error)."""


@dataclass(frozen=True)
class MatchLimits:
    """How long the platform lets one match run before it stops it (the match ends ``aborted``)."""

    max_steps: int = 2_000
    """Decisions (each: ask the pending seats, apply their actions). The longest games measured
    take under 300 (random and greedy bots, both games, smallest and largest tables); a Brexit
    round of passive bots takes one per seat, so 60 rounds (ruling B-31) of five take 300."""
    max_seconds: float | None = None
    """Wall-clock time of one run of the match; None for no limit."""

    def steps_reason(self) -> str:
        return (
            f"Stopped by the platform: the game had not ended after {self.max_steps:,} decisions,"
            " the most any match may take, so it has no result."
        )

    def time_reason(self) -> str:
        seconds = self.max_seconds or 0.0
        took = f"{seconds / 60:g} minutes" if seconds >= 120 else f"{seconds:g} seconds"
        return (
            f"Stopped by the platform: the match had been playing for {took},"
            " the most any match may take, so it has no result."
        )


class MatchDriver:
    """Plays one match from whatever events are already stored to its end."""

    def __init__(
        self,
        rules: Rules[Any],
        *,
        seats: int,
        seed: int,
        options: dict[str, Any] | None,
        players: Sequence[SeatPlayer],
        stored: Sequence[Event] = (),
        sink: Sink,
        flush_every: int = FLUSH_EVERY,
        limits: MatchLimits | None = None,
    ) -> None:
        self.rules, self.seed, self.players, self.sink = rules, seed, players, sink
        self.flush_every = flush_every
        self.limits = limits or MatchLimits()
        self.closed = False
        self.version = len(stored)
        self.flushed_version = self.version
        self.pending_events: list[Event] = []
        self.staged = 0
        """How many of pending_events the sink has been given."""
        self.logs: list[tuple[Seat, int, str]] = []
        self.stats = [SeatStats() for _ in range(seats)]
        self._count_stored_verdicts(stored)
        self.history: list[Event] = list(game_events(stored))
        """Every game event so far, to rebuild the state if a refused action touched it."""
        if stored:
            self.state = replay(rules, self.history)
        else:
            opening = rules.setup(seats, seed, options)
            self.state = replay(rules, opening)
            self._record(opening)

    def _count_stored_verdicts(self, stored: Sequence[Event]) -> None:
        """A resumed match's statistics go on from its stored verdicts: a person's match is
        resumed at every one of their decisions, and its bots' counts must not start again."""
        for ev in stored:
            if ev["type"] != BOT_VERDICT:
                continue
            payload = ev["payload"]
            stats = self.stats[payload["seat"]]
            verdict = payload["verdict"]
            stats.verdicts[verdict] = stats.verdicts.get(verdict, 0) + 1
            stats.strikes = payload.get("strikes", stats.strikes)
            stats.time_used_ms += int(payload.get("elapsed_ms", 0))
            bank = payload.get("bank_ms")
            if isinstance(bank, int) and not isinstance(bank, bool):
                stats.bank_ms = bank

    def run(self) -> Outcome:
        """Play to the end; raises MatchStopped when a platform limit (``limits``) is reached."""
        rules, limits = self.rules, self.limits
        deadline = None if limits.max_seconds is None else time.monotonic() + limits.max_seconds
        try:
            for _ in range(limits.max_steps):
                if len(self.pending_events) - self.staged >= STAGE_EVERY:
                    self._stage()
                pending = rules.pending(self.state)
                if not pending:
                    return self._finish()
                if deadline is not None and time.monotonic() > deadline:
                    self._stop(limits.time_reason())
                external = self._step(pending)
                if external or len(self.pending_events) >= self.flush_every:
                    self._flush(None)
            self._stop(limits.steps_reason())
        except BaseException:
            self.sink.abort()
            raise
        finally:
            self._close(rules.outcome(self.state))

    def _step(self, pending: list[Pending]) -> bool:
        seats = [p["seat"] for p in pending]
        asked = self._ask(seats)
        later = [seat for seat, move in zip(seats, asked, strict=True) if move is None]
        if later and len(later) == len(seats):
            self._flush(None)
            raise Suspended(later, self.version)
        external = False
        for seat, maybe in zip(seats, asked, strict=True):
            if maybe is None:
                continue  # asked again at the next step, when the others have moved
            player = self.players[seat]
            try:
                move, events = maybe, self._take(seat, maybe)
            except Exception as exc:  # a bot's action must never abort the match
                detail = self._refused(exc)  # first: the default is chosen on the rebuilt state
                move = player.strike("illegal_action", detail, self._default(seat))
                events = self._take(seat, move)
            if player.external:
                external = self._account(seat, move, player.strikes) or external
            self._record(events)
        return external

    def _ask(self, seats: list[Seat]) -> list[Move | None]:
        """Ask every pending seat; sandboxed bots deciding simultaneously think in parallel."""

        def ask(seat: Seat) -> Move | None:
            return self.players[seat].move(self.rules, self.state, seat, self._bot_rng(seat))

        if sum(self.players[s].external for s in seats) < 2:
            return [ask(seat) for seat in seats]
        with ThreadPoolExecutor(max_workers=len(seats)) as pool:
            return list(pool.map(ask, seats))

    def _bot_rng(self, seat: Seat) -> random.Random:
        # Built-in bots draw from their own generator, so they never disturb the game's
        # draws, keyed by the seat's own decision count (folded from the events: a resumed
        # match makes the same choices) so that twins give a bot the same numbers.
        count = decisions_made(self.rules, self.state, seat)
        return bot_rng(self.seed, seat, self.version if count is None else count)

    def _default(self, seat: Seat) -> Action:
        return self.rules.default_action(self.state, seat)

    def _refused(self, exc: Exception) -> str:
        """The verdict's detail, after putting the state back as it was before the action.

        ``decide`` should change nothing when it raises, but an engine that folded an
        event before failing would leave the live state ahead of the stream; folding
        the recorded events again costs a replay, at most once per strike.
        """
        self.state = replay(self.rules, self.history)
        return refusal(exc)

    def _take(self, seat: Seat, move: Move) -> list[Event]:
        """The move's events (decision.take, as a person's action through the API): its verdict
        if it is written, then the rules' events, from the step's own generator (a refused
        attempt that drew leaves the retry's draws as they were)."""
        return take(
            self.rules,
            self.state,
            seat,
            move,
            seed=self.seed,
            version=self.version,
            strikes=self.players[seat].strikes,
            recorded=self._written(seat, move),
        )

    def _written(self, seat: Seat, move: Move) -> bool:
        """Whether the move's verdict is an event: a sandboxed bot's (or person's) is, except a
        disqualified seat's after the first, which is only counted (no event, no flush)."""
        if not self.players[seat].external:
            return False
        return not (move.verdict == DISQUALIFIED and self.stats[seat].verdicts.get(DISQUALIFIED))

    def _account(self, seat: Seat, move: Move, strikes: int) -> bool:
        """Count an external seat's move and keep what it logged; True if its verdict was
        written (the match then flushes: a sandboxed bot's time is expensive to lose)."""
        written = self._written(seat, move)  # before the count, which it reads
        self.stats[seat].count(move, strikes)
        if written and move.stderr:  # capped per decision and match by the player's sandbox
            self.logs.append((seat, self.version, storable(move.stderr)))
        return written

    def _record(self, events: list[Event]) -> None:
        self.pending_events.extend(events)
        self.history.extend(game_events(events))
        self.version += len(events)

    def _finish(self) -> Outcome:
        outcome = self.rules.outcome(self.state)
        assert outcome is not None, "a game with nothing pending must have an outcome"
        self._close(outcome)  # what the bots print in end() goes into the final flush
        self._record([finished_event(outcome, self.seed)])
        self._flush(outcome)
        return outcome

    def _stop(self, reason: str) -> NoReturn:
        """Make what was played durable, then stop: the aborted match keeps its events."""
        self._flush(None)
        raise MatchStopped(reason)

    def _close(self, outcome: Outcome | None) -> None:
        """Tell every player the match is over, once; keep what they logged while ending."""
        if self.closed:
            return
        self.closed = True
        for seat, player in enumerate(self.players):
            text = player.close(outcome)
            if text:
                self.logs.append((seat, self.version, storable(text)))

    def _stage(self) -> None:
        """Hand the sink the events recorded since the last call."""
        new = self.pending_events[self.staged :]
        if new:
            self.sink.stage(new, self.version - len(new))
            self.staged = len(self.pending_events)

    def _flush(self, outcome: Outcome | None) -> None:
        if not self.pending_events and outcome is None:
            return
        self._stage()
        self.sink(
            Flush(
                events=self.pending_events,
                expected_version=self.flushed_version,
                logs=self.logs,
                stats=self.stats,
                outcome=outcome,
            )
        )
        self.flushed_version = self.version
        self.pending_events, self.logs, self.staged = [], [], 0


class MemorySink:
    """Keeps flushed events in a list (local play, benchmarks, validation smoke matches)."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.logs: list[tuple[Seat, int, str]] = []
        self.flushes = 0

    def stage(self, events: Sequence[Event], after_version: int) -> None:
        pass

    def abort(self) -> None:
        pass

    def __call__(self, flush: Flush) -> None:
        if flush.expected_version != len(self.events):
            raise RuntimeError(
                f"expected version {flush.expected_version}, have {len(self.events)}"
            )
        self.events.extend(flush.events)
        self.logs.extend(flush.logs)
        self.flushes += 1
