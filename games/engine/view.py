"""The contract a game's view implements: what people see of a game, beside the Rules contract.

The platform's viewer (``replays`` and the site's pages) draws a game's board, tells its
events as sentences, names its seats and offers a person's controls only through the
:class:`GameView` the registry finds in ``games.<name>.view`` (``VIEW``). Every function
is pure, over what a viewer may see: observations (never the raw state) and events as a
viewer sees them (payload or redacted form). So a view can never show more than the
observations and events it was given.

The board and the controls are template contexts: the board is drawn by the game's own
template (``<name>/board.html`` in its ``templates`` folder); the controls use the
platform's few widgets (see :data:`Controls`), drawn by the site for every game.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from games.engine.types import Seat

Obs = Mapping[str, Any]
"""An observation (``Rules.observe``) or a decision's ``legal``, as plain JSON."""
Payload = Mapping[str, Any]
"""An event's payload as one viewer sees it (its redacted form for those who may not)."""
Card = dict[str, Any]
"""A card as a person reads it: ``name``, ``value`` (what it counts, printed on it; ``None``
for a card without one) and ``text`` (what it does, in words), all from the game's own
data; ``id`` and ``kind`` for the page's hooks, never shown as words."""
Controls = dict[str, Any]
"""One decision's controls: ``kind`` and ``title`` (a sentence), optionally ``about`` (the
:data:`Card` s the decision is about: the lot of an auction, the news at stake, the card
whose effect is chosen), then exactly one widget:

- ``choices``: ``[{"label", "json", "group"}]``, one button per enumerated action, its label
  a sentence without ids (the action's JSON rides along, so the page sends back exactly
  what the engine offered); ``group`` (optional) heads the buttons that share it;
- ``placement``: ``{"cards": [Card], "slots": [{"slot", "name"}]}``, each card kept or put
  in one slot, sent as ``{"place": [{"card", "slot"}]}``;
- ``bid``: ``{"min", "max", "step"}``, a number sent as ``{"bid": n}``;
- ``raw``: the legal actions as JSON, for a person to write the action by hand.
"""
Glossary = list[dict[str, Any]]
"""A game's key, in sections: ``[{"title", "entries": [{"id", "abbr", "name", "text"}]}]``
(``abbr`` is what the board prints for it, or ``""``). The site shows it in the Rules panel,
each entry with the HTML id ``term-<id>``, which the board's abbreviations point to
(``aria-describedby``)."""


class Narrator(Protocol):
    """Tells one match's events in order, keeping what a sentence needs to know."""

    def tell(self, type_: str, payload: Payload) -> str | None:
        """The event as a sentence; ``None`` for one the game does not tell (the platform's)."""
        ...


class Board(Protocol):
    def __call__(
        self, primary: Obs, seats: Mapping[Seat, Obs], labels: Sequence[str]
    ) -> dict[str, Any]:
        """The table as a template context.

        ``primary`` is the spectator's observation; ``seats`` the observations of the seats
        whose hidden cards the view may show (none, one, or every seat when all cards are
        face up).
        """
        ...


class SeatLabels(Protocol):
    def __call__(self, seats: int, first_payload: Payload | None) -> list[str]:
        """What the log and board call each seat; ``first_payload`` is the opening event's."""
        ...


class ControlsOf(Protocol):
    def __call__(self, legal: Obs, observation: Obs, names: Sequence[str], me: Seat) -> Controls:
        """A person's controls for one decision, from what a bot of seat ``me`` is given."""
        ...


@dataclass(frozen=True)
class GameView:
    """One game's view, as ``games.<name>.view.VIEW``."""

    seat_labels: SeatLabels
    board: Board
    narrator: Callable[[Sequence[str]], Narrator]
    """A narrator for one log, given the seats' labels."""
    controls: ControlsOf
    glossary: Callable[[], Glossary] = lambda: []
    """The game's key (symbols, card kinds, aids), from its own data."""


# --- small helpers the games' views share -------------------------------------------------


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def join(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``; ``nothing`` for none."""
    if not items:
        return "nothing"
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


class SeatNarrator:
    """A narrator's base: names the seats by their labels (``seat 7`` for one out of range)."""

    def __init__(self, labels: Sequence[str]) -> None:
        self.labels = list(labels)

    def who(self, seat: Any) -> str:
        if isinstance(seat, int) and 0 <= seat < len(self.labels):
            return self.labels[seat]
        return f"seat {seat}"


def seat_name(k: Any, names: Sequence[str], me: Seat) -> str:
    """Seat ``k`` as the person at seat ``me`` reads it in a control."""
    if k == me:
        return "yourself"
    if isinstance(k, int) and 0 <= k < len(names):
        return names[k]
    return str(k)


def plain_action(action: Mapping[str, Any], name: Callable[[Any], str] = str) -> str:
    """An action no game words better: ``Pass``, or its keys and values."""
    if action.get("pass") is True:
        return "Pass"
    return ", ".join(f"{k} {name(v)}" for k, v in action.items()) or json.dumps(action)


def decision_controls(
    legal: Obs,
    titles: Mapping[str, str],
    describe: Callable[[Mapping[str, Any]], str],
    form: Callable[[str, Obs], Controls | None] = lambda kind, space: None,
    *,
    group: Callable[[Mapping[str, Any]], str] = lambda action: "",
    about: Sequence[Card] = (),
) -> Controls:
    """Controls for one decision: a button per enumerated action, else the game's ``form``
    for its described space (a widget of :data:`Controls`), else the raw JSON box.

    ``group`` heads the buttons of the actions that share it (``""``: no heading);
    ``about``: the cards the decision is about, shown above its widget."""
    kind = str(legal.get("kind", ""))
    out: Controls = {"kind": kind, "title": titles.get(kind, kind.replace("_", " "))}
    if about:
        out["about"] = list(about)
    actions = legal.get("actions") or []
    if actions:
        out["choices"] = [
            {"label": describe(a), "json": json.dumps(a), "group": group(a)} for a in actions
        ]
    elif (widget := form(kind, legal.get("space") or {})) is not None:
        out.update(widget)
    else:
        out["raw"] = json.dumps(legal)
    return out
