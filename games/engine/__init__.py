"""The contract every game implements, and the small machinery shared by all games.

A game is a :class:`~games.engine.rules.Rules` object: pure functions over
plain data (OpenSpiel's shape, boardgame.io's purity). State changes only by
folding events; every random outcome is itself an event.
"""

from games.engine.errors import BadOptions, IllegalAction
from games.engine.events import event, private_event, view
from games.engine.match import LocalMatch, replay
from games.engine.rng import step_rng
from games.engine.rules import Rules
from games.engine.types import Action, Event, Legal, Outcome, Pending, Seat

__all__ = [
    "Action",
    "BadOptions",
    "Event",
    "IllegalAction",
    "Legal",
    "LocalMatch",
    "Outcome",
    "Pending",
    "Rules",
    "Seat",
    "event",
    "private_event",
    "replay",
    "step_rng",
    "view",
]
