"""High Card's rules (rules.md): one hidden card each, one chance to swap it for a random draw."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from games.engine.errors import BadOptions, IllegalAction
from games.engine.events import event, private_event
from games.engine.rng import step_rng
from games.engine.shapes import check_shape
from games.engine.types import JSON, Action, Event, Legal, Outcome, Pending
from tests.support.games.highcard.actions import SHAPES, SWAP

CARDS = [f"c{n}" for n in range(1, 10)]


def value(card: str) -> int:
    return int(card[1:])


@dataclass
class State:
    seats: int = 0
    deck: list[str] = field(default_factory=list)
    """The cards nobody holds, in a fixed order (draws pick at random, written in the event)."""
    hands: list[str | None] = field(default_factory=list)
    discards: list[str] = field(default_factory=list)
    turn: int = 0
    revealed: list[str] | None = None
    result: JSON | None = None


def _started(s: State, p: JSON) -> None:
    s.seats, s.deck, s.hands = p["seats"], list(CARDS), [None] * p["seats"]


def _dealt(s: State, p: JSON) -> None:
    s.deck.remove(p["card"])
    s.hands[p["seat"]] = p["card"]


def _discarded(s: State, p: JSON) -> None:
    s.hands[p["seat"]] = None
    s.discards.append(p["card"])


def _drawn(s: State, p: JSON) -> None:
    _dealt(s, p)
    s.turn += 1


def _kept(s: State, p: JSON) -> None:
    s.turn += 1


def _revealed(s: State, p: JSON) -> None:
    s.revealed = list(p["cards"])


def _ended(s: State, p: JSON) -> None:
    s.result = {"scores": list(p["scores"]), "ranks": list(p["ranks"])}


FOLDS: dict[str, Callable[[State, JSON], None]] = {
    "game_started": _started,
    "dealt": _dealt,
    "discarded": _discarded,
    "drawn": _drawn,
    "kept": _kept,
    "revealed": _revealed,
    "game_ended": _ended,
}


def _draw(s: State, seat: int, rng: random.Random, type_: str, actor: int | None = None) -> Event:
    """A random card from the deck, seen by ``seat`` alone: the draw is written in the event."""
    card = rng.choice(s.deck)
    payload = {"seat": seat, "card": card}
    return private_event(type_, payload, to=[seat], redacted={"seat": seat}, actor=actor)


class HighCardRules:
    name = "highcard"
    engine_version = "highcard-1"
    end_reveals: Mapping[str, frozenset[str]] = {
        "revealed": frozenset({"cards"})
    }  # every hand, face up at the end
    min_seats = 2
    max_seats = 4

    def options(self, seats: int, options: Mapping[str, Any] | None) -> JSON:
        if type(seats) is not int or not self.min_seats <= seats <= self.max_seats:
            raise BadOptions(f"High Card seats 2 to 4 players, not {seats!r}")
        if options:
            raise BadOptions(f"High Card has no options, not {sorted(options)}")
        return {}

    def setup(self, seats: int, seed: int, options: Mapping[str, Any] | None = None) -> list[Event]:
        self.options(seats, options)
        rng = step_rng(seed, 0)
        state, out = State(), [event("game_started", {"seats": seats})]
        _started(state, out[0]["payload"])
        for seat in range(seats):
            out.append(_draw(state, seat, rng, "dealt"))
            self.fold(state, out[-1])
        return out

    def new_state(self) -> State:
        return State()

    def fold(self, state: State, event: Event) -> State:
        FOLDS[event["type"]](state, event["payload"])
        return state

    def pending(self, state: State) -> list[Pending]:
        if state.result is not None or state.turn >= state.seats:
            return []
        return [{"seat": state.turn, "kind": SWAP}]

    def legal(self, state: State, seat: int) -> Legal:
        if seat not in [p["seat"] for p in self.pending(state)]:
            return {"kind": "none", "actions": [], "space": None}
        return {"kind": SWAP, "actions": [{"swap": False}, {"swap": True}], "space": None}

    def check(self, state: State, seat: int, action: Action) -> None:
        if seat not in [p["seat"] for p in self.pending(state)]:
            raise IllegalAction(f"it is not seat {seat}'s decision")
        check_shape(SHAPES[SWAP], action, SWAP)

    def decide(self, state: State, seat: int, action: Action, rng: random.Random) -> list[Event]:
        self.check(state, seat, action)
        out: list[Event] = []

        def emit(ev: Event) -> None:
            out.append(ev)
            self.fold(state, ev)

        if action["swap"]:
            emit(event("discarded", {"seat": seat, "card": state.hands[seat]}, actor=seat))
            emit(_draw(state, seat, rng, "drawn", actor=seat))
        else:
            emit(event("kept", {"seat": seat}, actor=seat))
        if state.turn == state.seats:
            cards = [c for c in state.hands if c is not None]
            emit(event("revealed", {"cards": cards}))
            scores = [float(value(c)) for c in cards]
            ranks = [1 + sum(o > s for o in scores) for s in scores]
            emit(event("game_ended", {"scores": scores, "ranks": ranks}))
        return out

    def default_action(self, state: State, seat: int) -> Action:
        return {"swap": False}

    def observe(self, state: State, seat: int | None) -> JSON:
        if seat is not None and (type(seat) is not int or not 0 <= seat < state.seats):
            raise ValueError(f"seat {seat!r} is not at this table of {state.seats}")
        mine = state.hands[seat] if seat is not None else None
        return {
            "seats": state.seats,
            "hand_sizes": [int(c is not None) for c in state.hands],
            "hand": None if seat is None else [mine] if mine else [],
            "deck_size": len(state.deck),
            "discards": list(state.discards),
            "turn": state.turn,
            "pending": self.pending(state),
            "revealed": state.revealed,
            "result": state.result,
        }

    def outcome(self, state: State) -> Outcome | None:
        if state.result is None:
            return None
        return {"scores": list(state.result["scores"]), "ranks": list(state.result["ranks"])}

    def dump(self, state: State) -> JSON:
        return asdict(state)

    def load(self, data: JSON) -> State:
        return State(**copy.deepcopy(data))


RULES = HighCardRules()
