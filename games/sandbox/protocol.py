"""Protocol v1 messages, platform side: JSON objects, one per line (see docs/bots.md)."""

from __future__ import annotations

from typing import Any

from games.engine.encoding import json_line
from games.engine.types import JSON, Legal, Outcome, Seat
from games.sandbox import packages
from games.sandbox.limits import Limits

PROTOCOL_VERSION = 1


def encode(msg: JSON) -> bytes:
    """One message as its line on the wire."""
    return json_line(msg)


def start_message(
    *, game: str, seat: Seat, seats: int, options: JSON, limits: Limits, restarts: int = 0
) -> JSON:
    return {
        "type": "start",
        "protocol": PROTOCOL_VERSION,
        "game": game,
        "seat": seat,
        "seats": seats,
        "options": options,
        "limits": limits.for_bot(),
        "restarts": restarts,
        # What the bot may import beside the standard library, with versions (packages.py).
        "packages": packages.versions(),
    }


def act_message(
    msg_id: int, observation: JSON, legal: Legal, *, move_seconds: float, bank_seconds: float
) -> JSON:
    return {
        "type": "act",
        "id": msg_id,
        "observation": observation,
        "legal": dict(legal),
        "time_left": {"move_seconds": move_seconds, "bank_seconds": round(bank_seconds, 3)},
    }


def end_message(outcome: Outcome | None) -> JSON:
    out: dict[str, Any] = {"type": "end", "outcome": dict(outcome) if outcome else None}
    return out
