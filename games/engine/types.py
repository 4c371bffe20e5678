"""The JSON shapes that cross the engine's boundary: events, decisions, outcomes.

They are TypedDicts rather than classes because they are stored as JSON,
sent to bots as JSON and compared in tests as JSON.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

Seat = int
"""Seats are numbered 0..N-1 in table order (clockwise / to the left)."""

JSON = dict[str, Any]
Action = dict[str, Any]
"""An action is a JSON object; its keys are documented per game in docs/games/."""


class Event(TypedDict):
    """One thing that happened, appended to a match's stream.

    ``visible_to`` is ``None`` when everyone (every seat and spectators) may
    see ``payload``. Otherwise only the listed seats see ``payload`` and
    everyone else sees ``redacted`` instead (for example "P2 placed 2
    face-down cards next to slot 1"). Once the match is over every payload
    becomes public, like the seed.
    """

    type: str
    actor: Seat | None
    payload: JSON
    visible_to: list[Seat] | None
    redacted: JSON | None
    schema_version: NotRequired[int]


class Pending(TypedDict):
    """A seat that must decide now, and what kind of decision it is."""

    seat: Seat
    kind: str


class Legal(TypedDict):
    """The legal actions of one seat.

    Small action sets are enumerated in ``actions``. Large ones (a Brexit
    placement is any assignment of hand cards to revealed countries) are
    described by ``space`` and checked by the game's ``check``.
    """

    kind: str
    actions: list[Action] | None
    space: JSON | None


class Outcome(TypedDict):
    """Final scores and ranks (1 = best; tied seats share a rank)."""

    scores: list[float]
    ranks: list[int]
    detail: NotRequired[JSON]
