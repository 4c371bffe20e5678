"""The shape of High Card's one decision (games/engine/shapes.py)."""

from __future__ import annotations

from games.engine.shapes import BOOL, Obj, Shape

SWAP = "swap"

SHAPES: dict[str, Shape] = {SWAP: Obj({"swap": BOOL})}
