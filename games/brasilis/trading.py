"""Binding trades of Power cards and money during a dispute, when enabled (S-31)."""

from __future__ import annotations

from games.brasilis.cards import MONEY_UNIT
from games.brasilis.fold import emit
from games.brasilis.money import transfer
from games.brasilis.state import State
from games.brasilis.steps import Next
from games.engine.errors import IllegalAction
from games.engine.events import event, private_event
from games.engine.types import Action, Event

SPACE = {
    "propose": {
        "to": "a seat that has not passed on this news, not you",
        "cards": "ids of Power cards from your hand that you give",
        "money": "dollars you give: a multiple of 100 you can afford",
        "ask_cards": "how many Power cards the recipient gives you (they choose which)",
        "ask_money": "dollars the recipient gives you: a multiple of 100",
    },
    "once": "one proposal per turn, before your action; then you still act",
}


def _amount(value: object, what: str) -> int:
    if type(value) is not int or value < 0 or value % MONEY_UNIT:
        raise IllegalAction(
            f"{what} must be a non-negative multiple of {MONEY_UNIT}, not {value!r}"
        )
    return value


def check_proposal(state: State, seat: int, action: Action) -> None:
    if not state.options.get("trading"):
        raise IllegalAction("trading is not enabled in this game (option 'trading', S-31)")
    if state.passed[seat]:
        raise IllegalAction("you have passed on this news and cannot trade (S-31)")
    if state.traded:
        raise IllegalAction("you have already made a trade proposal this turn (S-31)")
    offer = action["propose"]
    if not isinstance(offer, dict) or set(offer) - {
        "to",
        "cards",
        "money",
        "ask_cards",
        "ask_money",
    }:
        raise IllegalAction("a proposal is {'to', 'cards', 'money', 'ask_cards', 'ask_money'}")
    to = offer.get("to")
    if type(to) is not int or not 0 <= to < state.n or to == seat:
        raise IllegalAction(f"'to' must be another politician's seat, not {to!r}")
    if state.passed[to]:
        raise IllegalAction(f"politician {to} has passed on this news and cannot trade (S-31)")
    cards = offer.get("cards", [])
    if not isinstance(cards, list) or len(set(cards)) != len(cards):
        raise IllegalAction("'cards' must be a list of distinct card ids")
    for card in cards:
        if card not in state.hands[seat]:
            raise IllegalAction(f"card {card!r} is not in your hand")
    money = _amount(offer.get("money", 0), "'money'")
    if money > state.money[seat]:
        raise IllegalAction(f"you cannot afford ${money} (you have ${state.money[seat]}) (S-6)")
    ask = offer.get("ask_cards", 0)
    if type(ask) is not int or not 0 <= ask <= len(state.hands[to]):
        raise IllegalAction(f"'ask_cards' must be 0..{len(state.hands[to])}, not {ask!r}")
    ask_money = _amount(offer.get("ask_money", 0), "'ask_money'")
    if not (cards or money or ask or ask_money):
        raise IllegalAction("an empty proposal exchanges nothing")


def propose(state: State, out: list[Event], seat: int, action: Action) -> Next:
    offer = action["propose"]
    payload = {
        "from": seat,
        "to": offer["to"],
        "cards": list(offer.get("cards", [])),
        "money": offer.get("money", 0),
        "ask_cards": offer.get("ask_cards", 0),
        "ask_money": offer.get("ask_money", 0),
    }
    redacted = {**payload, "cards": len(payload["cards"])}
    emit(
        state,
        out,
        private_event(
            "trade_proposed", payload, to=[seat, offer["to"]], redacted=redacted, actor=seat
        ),
    )
    emit(state, out, event("awaiting", {"kind": "trade_reply", "seats": [offer["to"]]}))
    return None


def check_reply(state: State, seat: int, action: Action) -> None:
    trade = state.trade
    assert trade is not None
    if "accept" not in action or type(action["accept"]) is not bool:
        raise IllegalAction(
            "answer a trade with {'accept': true, 'cards': [...]} or {'accept': false}"
        )
    if not action["accept"]:
        return
    cards = action.get("cards", [])
    if (
        not isinstance(cards, list)
        or len(set(cards)) != len(cards)
        or len(cards) != trade["ask_cards"]
    ):
        raise IllegalAction(f"give exactly {trade['ask_cards']} distinct card(s) from your hand")
    for card in cards:
        if card not in state.hands[seat]:
            raise IllegalAction(f"card {card!r} is not in your hand")
    if trade["ask_money"] > state.money[seat]:
        raise IllegalAction(f"you cannot afford the ${trade['ask_money']} asked (S-6)")


def reply(state: State, out: list[Event], seat: int, action: Action) -> Next:
    trade = state.trade
    assert trade is not None
    src = trade["from"]
    accepted = bool(action["accept"])
    cards = list(action.get("cards", [])) if accepted else []
    payload = {"from": src, "to": seat, "accepted": accepted, "cards": cards}
    redacted = {**payload, "cards": len(cards)}
    emit(
        state,
        out,
        private_event("trade_answered", payload, to=[src, seat], redacted=redacted, actor=seat),
    )
    if accepted:
        transfer(state, out, src, seat, trade["money"], "trade")
        transfer(state, out, seat, src, trade["ask_money"], "trade")
    emit(state, out, event("awaiting", {"kind": "dispute", "seats": [src], "traded": True}))
    return None
