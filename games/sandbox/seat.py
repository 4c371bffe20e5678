"""One seat's bot over a whole match: deadlines, the time bank, strikes, disqualification.

The match runner calls :meth:`SeatController.decide` for each of the seat's
decisions and gets an action it can always play: the bot's own, or the game's
default action when the bot faulted. No bot behaviour makes it raise.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import NamedTuple

from games.engine.storable import storable
from games.engine.types import JSON, Action, Legal, Outcome, Seat
from games.sandbox.connection import BotConnection, Exchange
from games.sandbox.limits import Limits
from games.sandbox.protocol import act_message, end_message, start_message
from games.sandbox.readiness import require_isolation
from games.sandbox.verdicts import STRIKES, Verdict

MAX_STRIKES = 3
END_GRACE_SECONDS = 1.0
"""How long a bot has to run its end() and exit before it is stopped. A bot that returns from
end() exits at once (the wait ends at its EOF), so only a bot that hangs there costs the full
second; 0.2 s was too short for a loaded host to start the interpreter's shutdown and flush."""


class Decision(NamedTuple):
    action: Action
    """What to play: the bot's action when verdict is ok, else the default action."""
    verdict: Verdict
    detail: str
    """Why, for the bot's owner (traceback, the engine's IllegalAction message...); storable, as
    ``stderr`` is (games.engine.storable)."""
    stderr: str
    """The bot's stderr during this decision (and its start, if it started for it), capped per
    decision and per match (owner only)."""
    elapsed: float
    """Wall-clock seconds the bot took (0 when it was not asked)."""


class SeatController:
    """The bot process of one seat and its strike record.

    ``mode`` chooses the sandbox; the platform leaves the default, the one
    readiness.require_isolation() allows on this host (checked at each start).
    """

    def __init__(
        self,
        bot_dir: str | Path,
        *,
        game: str,
        seat: Seat,
        seats: int,
        options: JSON | None = None,
        limits: Limits | None = None,
        max_strikes: int = MAX_STRIKES,
        mode: str | None = None,
    ) -> None:
        self.bot_dir = Path(bot_dir)
        self.game, self.seat, self.seats = game, seat, seats
        self.options = options or {}
        self.limits = limits or Limits()
        self.max_strikes = max_strikes
        self.mode = mode
        self.strikes = 0
        self.restarts = -1
        self.time_bank = self.limits.bank_seconds
        self.history: list[Verdict] = []
        self._conn: BotConnection | None = None
        self._start_fault: Exchange | None = None
        self._next_id = 0
        self.log_bytes = 0
        """Bytes of stderr handed out so far this match, across restarts (stderr_match_bytes)."""
        self._start_log = ""

    @property
    def disqualified(self) -> bool:
        return self.strikes >= self.max_strikes

    # --- lifecycle -------------------------------------------------------

    def start(self) -> None:
        """Start the bot now rather than at its first decision.

        A failure to start is reported by the next decide() (one strike).
        Raises SandboxUnavailable only if this host cannot isolate bots.
        """
        if self.disqualified or (self._conn is not None and self._conn.alive):
            return
        self.close()  # a dead predecessor still holds its uid lease and staged files
        self.restarts += 1
        conn = BotConnection(self.bot_dir, self.limits, mode=self.mode or require_isolation())
        self._conn = conn
        msg = start_message(
            game=self.game,
            seat=self.seat,
            seats=self.seats,
            options=self.options,
            limits=self.limits,
            restarts=self.restarts,
        )
        got = conn.start(msg)
        if got.fault is not None:
            self._start_fault = got
        else:  # what start() printed is logged with the decision the bot was started for
            self._start_log += got.stderr

    def end(self, outcome: Outcome | None) -> str:
        """Tell the bot the result, give it a moment, then stop it; returns what it logged."""
        conn, text = self._conn, ""
        if conn is not None and conn.alive:
            text = conn.finish(end_message(outcome), grace=END_GRACE_SECONDS)
        self.close()
        text, self._start_log = self._start_log + text, ""
        return self._log(text)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> SeatController:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # --- decisions -------------------------------------------------------

    def decide(
        self,
        observation: JSON,
        legal: Legal,
        *,
        default: Action | Callable[[], Action],
        check: Callable[[Action], object] | None = None,
    ) -> Decision:
        """Ask the bot for one action; on any fault play ``default`` and count a strike.

        ``check`` is the game's validation (e.g. ``lambda a: rules.check(state, seat, a)``):
        whatever it raises makes the verdict illegal_action, with its message as detail.
        """
        if self.disqualified:
            self.close()
            detail = f"disqualified after {self.strikes} strikes"
            return self._record(Decision(_default(default), Verdict.DISQUALIFIED, detail, "", 0.0))
        got = self._ask(observation, legal)
        if got.fault is not None:
            return self._fault(got.fault, got.detail, got.stderr, got.elapsed, default)
        action = (got.reply or {}).get("action")
        if not isinstance(action, dict):
            detail = f"the action must be a JSON object, not {type(action).__name__}"
            return self._fault(Verdict.BAD_OUTPUT, detail, got.stderr, got.elapsed, default)
        if check is not None:
            try:
                check(action)
            except Exception as exc:  # the message may quote the action: the bot's own text
                detail = storable(str(exc) or type(exc).__name__)
                return self._fault(Verdict.ILLEGAL_ACTION, detail, got.stderr, got.elapsed, default)
        return self._record(Decision(action, Verdict.OK, "", got.stderr, got.elapsed))

    def strike(self, verdict: Verdict, detail: str, default: Action) -> Decision:
        """Count a fault found after decide() (e.g. the engine's decide() refused the action)."""
        return self._fault(verdict, detail, "", 0.0, default)

    def _ask(self, observation: JSON, legal: Legal) -> Exchange:
        if self._conn is None or (not self._conn.alive and self._start_fault is None):
            self.start()
        if self._start_fault is not None:
            got, self._start_fault = self._start_fault, None
            return got
        assert self._conn is not None
        self._next_id += 1
        move = self.limits.move_seconds
        msg = act_message(
            self._next_id, observation, legal, move_seconds=move, bank_seconds=self.time_bank
        )
        got = self._conn.ask(msg, move + self.time_bank)
        if got.fault is Verdict.TIMEOUT:
            self.time_bank = 0.0
        else:
            self.time_bank = max(0.0, self.time_bank - max(0.0, got.elapsed - move))
        return got

    def resume(self, strikes: int, bank_seconds: float | None) -> None:
        """Go on with a stored match: its strikes, and the time bank its last verdict left
        (``None``, a seat no verdict of a sandboxed bot spoke for yet: a full bank).

        A match with a person's seat is resumed at each of their decisions, and a bot
        given a full bank each time would have more time than the limits say.
        """
        self.strikes = strikes
        full = self.limits.bank_seconds
        self.time_bank = full if bank_seconds is None else max(0.0, min(bank_seconds, full))

    def _fault(
        self,
        verdict: Verdict,
        detail: str,
        stderr: str,
        elapsed: float,
        default: Action | Callable[[], Action],
    ) -> Decision:
        if verdict in STRIKES:
            self.strikes += 1
        if self.disqualified:
            self.close()
            detail = f"{detail} (strike {self.strikes}: disqualified)"
        return self._record(Decision(_default(default), verdict, detail, stderr, elapsed))

    def _record(self, decision: Decision) -> Decision:
        self.history.append(decision.verdict)
        text, self._start_log = self._start_log + decision.stderr, ""
        return decision._replace(stderr=self._log(text))

    def _log(self, text: str) -> str:
        """What of ``text`` fits in the rest of the match's log (limits.stderr_match_bytes).

        Once the log is full it says so, once; every later line is dropped without a word.
        """
        cap = self.limits.stderr_match_bytes
        if not text or self.log_bytes >= cap:
            return ""
        data = text.encode("utf-8", "replace")
        room = cap - self.log_bytes
        if len(data) <= room:
            self.log_bytes += len(data)
            return text
        self.log_bytes = cap
        kept = data[:room].decode("utf-8", "ignore")
        return (
            f"{kept}\n[log limit of {cap} bytes for this match reached: later output is dropped]\n"
        )


def _default(default: Action | Callable[[], Action]) -> Action:
    return default() if callable(default) else default
