"""The JSON shape of each Brexit decision's action (checked before the rules, see games/engine/shapes.py).

The shapes fix the keys and their JSON types only; which cards, seats and
deals are allowed is the rules' check (games/brexit/decide.py, effects.py).
"""

from __future__ import annotations

from games.brexit.state import EFFECT, PLACEMENT
from games.engine.shapes import INT, STR, ListOf, Obj, OneOf, Shape

_SIDE = Obj({"seat": INT, "deal": STR})

SHAPES: dict[str, Shape] = {
    PLACEMENT: Obj({"place": ListOf(Obj({"card": STR, "slot": INT}))}),
    EFFECT: OneOf(
        (
            Obj({"effect": STR}),  # "none", or a card kind whose other keys are missing
            Obj({"effect": STR, "target": INT, "deal": STR}),  # take, switch_another
            Obj({"effect": STR, "deal": STR}),  # switch_your
            Obj({"effect": STR, "first": _SIDE, "second": _SIDE}),  # switch_two
        )
    ),
}
