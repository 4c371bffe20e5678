"""One decision: a seat's move turned into the events that record it.

A decision is taken in three places: the match loop (``driver.MatchDriver``) asks a bot, a
person's seat answers through the API (``tournaments.play.lifecycle``), and an in-memory match
between trusted players (``match.LocalMatch``: simulate, the bots' tests) applies one. All call
:func:`take`, so they cannot drift apart: the step's random generator is derived from the
seed and the stream version before the decision (a resumed match draws what an uninterrupted
one would), the rules decide, and the verdict on the move, when the seat's decisions are
recorded, comes first in the stream, followed by the rules' events, at the step's version.

What happens when the rules refuse the move is each caller's: the loop counts a strike and
plays the game's default action (a bot's action never aborts a match), a person's action is
refused with the rules' reason and nothing is stored. Either way the reason is
:func:`refusal`'s words.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from games.engine.errors import IllegalAction
from games.engine.platform_events import verdict_event
from games.engine.rng import step_rng
from games.engine.rules import Rules
from games.engine.storable import storable
from games.engine.types import Action, Event, Seat

DETAIL_CAP = 2000
"""Characters of an engine's refusal kept in a verdict (a bot can make the message huge)."""


class Move(NamedTuple):
    """A player's answer to one decision, with the verdict on how it was obtained."""

    action: Action
    verdict: str = "ok"
    detail: str = ""
    stderr: str = ""
    elapsed: float = 0.0
    bank: float | None = None
    """Seconds left in the player's time bank after this decision (None: it has none)."""


def refusal(exc: Exception) -> str:
    """Why an action was refused, in words a player reads, bounded however large the action:
    the rules' own reason (an IllegalAction), else that the engine failed on it. A bot's
    verdict and a person's 400 say the same."""
    if isinstance(exc, IllegalAction):
        return str(exc)[:DETAIL_CAP]
    return f"the engine could not apply this action ({type(exc).__name__}: {exc})"[:DETAIL_CAP]


def bank_ms(seconds: float) -> int:
    return max(0, int(seconds * 1000))


def verdict(seat: Seat, move: Move, *, strikes: int, step: int) -> Event:
    """The verdict on ``move``. Its texts are made storable here, whoever the player: a bot
    chose them, directly (its log) or not (a refusal quoting its action)."""
    return verdict_event(
        seat,
        move.verdict,
        detail=storable(move.detail),
        elapsed_ms=int(move.elapsed * 1000),
        strikes=strikes,
        step=step,
        bank_ms=None if move.bank is None else bank_ms(move.bank),
    )


def take(
    rules: Rules[Any],
    state: Any,
    seat: Seat,
    move: Move,
    *,
    seed: int,
    version: int,
    strikes: int,
    recorded: bool,
) -> list[Event]:
    """The events of ``seat``'s ``move`` taken on ``state`` (which the rules fold it into) when
    the stream is at ``version``: its verdict first if the seat's decisions are ``recorded``
    (with its ``strikes`` so far), then the rules' events.

    Raises what ``rules.decide`` raises when it refuses the move (see the module: the caller's).
    """
    events = rules.decide(state, seat, move.action, step_rng(seed, version))
    if not recorded:
        return events
    return [verdict(seat, move, strikes=strikes, step=version), *events]
