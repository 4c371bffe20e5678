"""Events the platform writes into a match's stream beside the engine's own.

They record what happened around the rules (a bot's verdict, the match's end)
and are skipped when folding the game state. They still take a stream version,
so every step's random generator is derived from the same position whether a
match runs on a worker, locally, or is resumed after a crash.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from games.engine.events import event, private_event
from games.engine.types import JSON, Event, Outcome, Seat

BOT_VERDICT = "bot_verdict"
MATCH_FINISHED = "match_finished"
MATCH_ABORTED = "match_aborted"
PLATFORM_EVENTS = frozenset({BOT_VERDICT, MATCH_FINISHED, MATCH_ABORTED})


def verdict_event(
    seat: Seat,
    verdict: str,
    *,
    detail: str,
    elapsed_ms: int,
    strikes: int,
    step: int,
    bank_ms: int | None = None,
) -> Event:
    """A bot's verdict on one decision: the details (tracebacks, time, the time bank left
    after it, for a sandboxed bot) for its owner only."""
    public = {"seat": seat, "verdict": verdict, "step": step, "strikes": strikes}
    private: JSON = {**public, "detail": detail, "elapsed_ms": elapsed_ms}
    if bank_ms is not None:
        private["bank_ms"] = bank_ms
    return private_event(
        BOT_VERDICT,
        private,
        to=[seat],
        redacted=public,
        actor=seat,
    )


def finished_event(outcome: Outcome, seed: int) -> Event:
    """The result, written once; the seed is revealed with it."""
    payload: JSON = {"outcome": dict(outcome), "seed": seed}
    return event(MATCH_FINISHED, payload)


def aborted_event(reason: str) -> Event:
    return event(MATCH_ABORTED, {"reason": reason})


def game_events(events: Iterable[Event]) -> Iterator[Event]:
    """The events the rules engine folds, in order."""
    return (ev for ev in events if ev["type"] not in PLATFORM_EVENTS)
