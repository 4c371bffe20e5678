"""The JSON shape of each Bra$ilis decision's action (checked before the rules, see games/engine/shapes.py).

The shapes fix the keys and their JSON types; whether the card is in your hand,
the seat may be targeted or the amount affordable is the rules' check.
"""

from __future__ import annotations

from games.brasilis.cards import POWER_KIND
from games.engine.shapes import BOOL, INT, STR, Among, Const, ListOf, Obj, OneOf, Shape

_REPOSITION = Among(
    "a Reposition card id (only a Reposition takes a destination)",
    frozenset(card for card, kind in POWER_KIND.items() if kind == "reposition"),
)
_CARDS = ListOf(STR)

SHAPES: dict[str, Shape] = {
    "dispute": OneOf(
        (
            Obj({"play": STR, "target": INT}),
            Obj({"play": _REPOSITION, "target": INT, "destination": INT}),
            Obj({"aid": STR}),
            Obj({"aid": Const("palanque"), "neighbour": INT}),
            Obj({"pass": Const(True)}),
            Obj(
                {
                    "propose": Obj(
                        {"to": INT},
                        {"cards": _CARDS, "money": INT, "ask_cards": INT, "ask_money": INT},
                    )
                }
            ),
        )
    ),
    "bid": Obj({"bid": INT}),
    "auction_choice": Obj({"choose_aid": STR}),
    "destination": Obj({"give_to": INT}),
    "lawyer": Obj({"lawyer": BOOL}),
    "media_pick": Obj({"reveal": STR}),
    "trade_reply": Obj({"accept": BOOL}, {"cards": _CARDS}),
}
