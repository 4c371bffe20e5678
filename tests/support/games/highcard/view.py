"""What people see of a High Card match: pure functions over observations and events as seen."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.engine.view import (
    Controls,
    GameView,
    Obs,
    Payload,
    SeatNarrator,
    decision_controls,
    join,
    plain_action,
)


def seat_labels(seats: int, first_payload: Payload | None) -> list[str]:
    return [f"Player {s + 1}" for s in range(seats)]


def board(primary: Obs, seats: Mapping[int, Obs], labels: Sequence[str]) -> dict[str, Any]:
    """Each seat's card, face up only to a view that may see it (or once all are revealed)."""
    revealed = primary.get("revealed")
    pending = {p["seat"] for p in primary.get("pending", [])}
    players = []
    for k, held in enumerate(primary.get("hand_sizes", [])):
        card = revealed[k] if revealed else ((seats.get(k) or {}).get("hand") or [None])[0]
        players.append(
            {"seat": k, "label": labels[k], "held": held, "card": card, "pending": k in pending}
        )
    return {
        "players": players,
        "deck_size": primary.get("deck_size"),
        "discards": list(primary.get("discards", [])),
        "over": primary.get("result") is not None,
    }


class Narrator(SeatNarrator):
    def tell(self, type_: str, p: Payload) -> str | None:
        if type_ == "game_started":
            return f"A game of High Card for {p['seats']}."
        if type_ in ("dealt", "drawn"):
            verb = "is dealt" if type_ == "dealt" else "draws"
            return f"{self.who(p['seat'])} {verb} {p.get('card', 'a card')}."
        if type_ == "discarded":
            return f"{self.who(p['seat'])} discards {p['card']}."
        if type_ == "kept":
            return f"{self.who(p['seat'])} keeps their card."
        if type_ == "revealed":
            return "Cards up: " + join([f"{self.who(k)} {c}" for k, c in enumerate(p["cards"])])
        if type_ == "game_ended":
            winners = [self.who(k) for k, rank in enumerate(p["ranks"]) if rank == 1]
            return f"{join(winners)} wins."
        return None


def describe(action: Mapping[str, Any]) -> str:
    if "swap" in action:
        return "Swap your card for a random one" if action["swap"] else "Keep your card"
    return plain_action(action)


def controls(legal: Obs, observation: Obs, names: Sequence[str], me: int) -> Controls:
    return decision_controls(legal, {"swap": "Keep your card or swap it"}, describe)


VIEW = GameView(seat_labels=seat_labels, board=board, narrator=Narrator, controls=controls)
