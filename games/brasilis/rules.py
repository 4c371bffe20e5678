"""``RULES``: the Bra$ilis engine behind the shared contract (games/engine/rules.py).

Each decision kind validates in its own module, which applies the decision and
says what happens next; :func:`games.brasilis.flow.proceed` then runs the
automatic steps up to the next decision. This module only routes by kind.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from games.brasilis import attribution, auction, dispute, flow, trading
from games.brasilis.actions import SHAPES
from games.brasilis.cards import INFLUENCE_VALUE, MONEY_UNIT
from games.brasilis.fold import fold as _fold
from games.brasilis.observe import observe as _observe
from games.brasilis.setup import ENGINE_VERSION, MAX_SEATS, MIN_SEATS, validate
from games.brasilis.setup import setup as _setup
from games.brasilis.state import State
from games.brasilis.state import dump as _dump
from games.brasilis.state import load as _load
from games.brasilis.steps import Next, Reveal
from games.engine.errors import IllegalAction
from games.engine.shapes import check_shape
from games.engine.types import JSON, Action, Event, Legal, Outcome, Pending, Seat


def _check(state: State, seat: Seat, action: Action) -> str:
    """Raise IllegalAction unless ``action`` is legal for ``seat`` now; return the decision kind."""
    if not isinstance(action, dict):
        raise IllegalAction(f"an action is a JSON object, not {action!r}")
    if type(seat) is not int or seat not in state.waiting:
        if state.phase == "over":
            raise IllegalAction("the game is over")
        raise IllegalAction(
            f"it is not politician {seat}'s decision now (waiting for {state.waiting}, {state.phase})"
        )
    kind = state.phase
    check_shape(SHAPES[kind], action, kind)  # types and keys first: the rules see only those
    if kind == "dispute":
        if "propose" in action:
            trading.check_proposal(state, seat, action)
        else:
            dispute.check(state, seat, action)
    elif kind == "bid":
        amount = action.get("bid")
        if type(amount) is not int or amount < 0 or amount % MONEY_UNIT:
            raise IllegalAction(f"a bid is a non-negative multiple of {MONEY_UNIT}, not {amount!r}")
        if amount > state.money[seat]:
            raise IllegalAction(f"you cannot bid ${amount}: you have ${state.money[seat]} (S-6)")
    elif kind == "auction_choice":
        if action.get("choose_aid") not in state.shown_aids:
            raise IllegalAction(
                f"choose one of the shown aids {state.shown_aids}, not {action.get('choose_aid')!r}"
            )
    elif kind == "destination":
        if action.get("give_to") not in state.tied:
            raise IllegalAction(
                f"the news must go to one of the tied politicians {state.tied} (S-34)"
            )
    elif kind == "lawyer":
        if type(action.get("lawyer")) is not bool:
            raise IllegalAction(
                "answer the Lawyer window with {'lawyer': true} or {'lawyer': false}"
            )
    elif kind == "media_pick":
        if action.get("reveal") not in state.offered:
            raise IllegalAction(f"reveal one of the two news you were dealt {state.offered} (S-33)")
    elif kind == "trade_reply":
        trading.check_reply(state, seat, action)
    return kind


class BrasilisRules:
    name = "brasilis"
    engine_version = ENGINE_VERSION
    # Who took which News, the last wallets and images: the final tally's workings.
    end_reveals: Mapping[str, frozenset[str]] = {
        "game_over": frozenset({"order", "news_counts", "piles", "image", "money"})
    }
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS

    def options(self, seats: int, options: Mapping[str, Any] | None) -> JSON:
        return validate(seats, options)

    def setup(self, seats: int, seed: int, options: Mapping[str, Any] | None = None) -> list[Event]:
        return _setup(State(), seats, seed, options)

    def new_state(self) -> State:
        return State()

    def fold(self, state: State, event: Event) -> State:
        return _fold(state, event)

    def pending(self, state: State) -> list[Pending]:
        kind = state.phase
        return [{"seat": s, "kind": kind} for s in state.waiting]

    def legal(self, state: State, seat: Seat) -> Legal:
        kind = state.phase
        if seat not in state.waiting:
            return {"kind": "none", "actions": [], "space": None}
        actions: list[Action] | None
        space: JSON | None = None
        if kind == "dispute":
            actions = dispute.legal(state, seat)
            if state.options.get("trading") and not state.passed[seat] and not state.traded:
                space = trading.SPACE
        elif kind == "bid":
            actions = None  # up to 61 amounts: described rather than listed
            space = {"bid": {"min": 0, "max": state.money[seat], "step": MONEY_UNIT}}
        elif kind == "auction_choice":
            actions = [{"choose_aid": a} for a in state.shown_aids]
        elif kind == "destination":
            actions = [{"give_to": s} for s in state.tied]
        elif kind == "lawyer":
            actions = [{"lawyer": True}, {"lawyer": False}]
        elif kind == "media_pick":
            actions = [{"reveal": c} for c in state.offered]
        else:  # trade_reply
            trade = state.trade
            assert trade is not None
            actions = [{"accept": False}]
            if trade["ask_cards"] == 0 and trade["ask_money"] <= state.money[seat]:
                actions.append({"accept": True, "cards": []})
            space = {"accept": {"cards": f"exactly {trade['ask_cards']} card id(s) from your hand"}}
        return {"kind": kind, "actions": actions, "space": space}

    def check(self, state: State, seat: Seat, action: Action) -> None:
        _check(state, seat, action)

    def decide(self, state: State, seat: Seat, action: Action, rng: random.Random) -> list[Event]:
        kind = _check(state, seat, action)
        out: list[Event] = []
        step: Next
        if kind == "dispute":
            if "propose" in action:
                step = trading.propose(state, out, seat, action)
            else:
                step = dispute.apply(state, out, rng, seat, action)
        elif kind == "bid":
            step = auction.place_bid(state, out, seat, action["bid"])
        elif kind == "auction_choice":
            step = auction.open_lot(state, out, seat, action["choose_aid"])
        elif kind == "destination":
            step = attribution.attribute(state, out, action["give_to"], seat)
        elif kind == "lawyer":
            step = attribution.lawyer(state, out, seat, action["lawyer"])
        elif kind == "media_pick":
            step = Reveal(action["reveal"], "offer")
        else:
            step = trading.reply(state, out, seat, action)
        flow.proceed(state, out, rng, step)
        return out

    def decisions(self, state: State, seat: Seat) -> int:
        """The decisions the seat was asked for so far (games/engine/rules.py: decisions_made)."""
        return state.asked[seat] if seat < len(state.asked) else 0

    def default_action(self, state: State, seat: Seat) -> Action:
        kind = state.phase
        if kind == "dispute":
            actions = dispute.legal(state, seat)
            if {"pass": True} in actions:
                return {"pass": True}
            # legal() lists the lowest card first, influence cards before the others.
            own = [
                a
                for a in actions
                if "play" in a and a["target"] == seat and a["play"] in INFLUENCE_VALUE
            ]
            return own[0] if own else actions[0]
        if kind == "bid":
            return {"bid": 0}
        if kind == "lawyer":
            return {"lawyer": False}
        if kind == "trade_reply":
            return {"accept": False}
        legal = self.legal(state, seat)["actions"]
        assert legal
        return legal[0]

    def observe(self, state: State, seat: Seat | None) -> JSON:
        return _observe(state, seat)

    def outcome(self, state: State) -> Outcome | None:
        result = state.result
        if result is None:
            return None
        return {
            "scores": [float(v) for v in result["votes"]],
            "ranks": list(result["ranks"]),
            "detail": result,
        }

    def dump(self, state: State) -> JSON:
        return _dump(state)

    def load(self, data: JSON) -> State:
        return _load(data)


RULES = BrasilisRules()
