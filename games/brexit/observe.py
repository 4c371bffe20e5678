"""What one seat (or a spectator) may know: the information set as JSON.

Built field by field from public zones plus the seat's own hand and agenda
(B-23, B-29); decks appear only as sizes, except the cards Takes put on top.
"""

from __future__ import annotations

from typing import Any

from games.brexit.decide import pending
from games.brexit.scoring import deal_points
from games.brexit.state import EFFECT, State


def observe(state: State, seat: int | None) -> dict[str, Any]:
    n = state.seats
    flipped = state.flipped
    slots = []
    for i, country in enumerate(state.slots):
        counts = [0] * n
        cards: list[list[str] | None] = []
        for p in range(n):
            mine = [
                c
                for c, s in zip(state.placed_cards[p], state.placed_slots[p], strict=True)
                if s == i
            ]
            counts[p] = len(mine)
            cards.append(mine if flipped or p == seat else None)
        slots.append(
            {
                "slot": i,
                "country": country,
                "blocked": state.blocked[i],
                "counts": counts,
                "cards": cards,
            }
        )
    known = state.known_top
    deck = state.country_deck
    effect = None
    if state.phase == EFFECT and state.activations:
        a = state.activations[0]
        effect = {"seat": a["seat"], "card": a["card"], "slot": a["slot"]}
    obs: dict[str, Any] = {
        "seat": seat,
        "seats": n,
        "nations": state.nations,
        "round": state.round,
        "start_seat": state.start_seat,
        "phase": state.phase,
        "pending": pending(state),
        "hand": list(state.hands[seat]) if seat is not None else None,
        "agenda": state.agendas[seat] if seat is not None else None,
        "score": deal_points(state.deals[seat], state.agendas[seat]) if seat is not None else None,
        "hand_sizes": [len(h) for h in state.hands],
        "deals": [list(d) for d in state.deals],
        "deck_sizes": {
            "country": len(deck),
            "negotiation": len(state.negotiation_deck),
            "agenda": len(state.agenda_deck),
        },
        "known_top": deck[len(deck) - known :][::-1] if known else [],
        "country_discard": list(state.country_discard),
        "negotiation_discard": list(state.negotiation_discard),
        "removed": list(state.removed),
        "unused": list(state.unused),
        "slots": slots,
        "effect": effect,
        "result": state.result,
    }
    return obs
