"""What one seat (or a spectator) may know: the information set as JSON.

Built field by field from public zones plus the seat's own hand and agenda
(B-23, B-29); decks appear only as sizes, except the cards Takes put on top.
It is built once per decision by the platform, so it avoids per-card work.
"""

from __future__ import annotations

from typing import Any

from games.brexit.scoring import deal_points
from games.brexit.state import EFFECT, PLACEMENT, State
from games.brexit.turn import ROUND_LIMIT
from games.engine.plain import copied


def _slots(state: State, seat: int | None) -> list[dict[str, Any]]:
    countries = state.slots
    if not countries:
        return []
    placed_cards, placed_slots = state.placed_cards, state.placed_slots
    blocked = state.blocked
    out = []
    for i, country in enumerate(countries):
        counts = [slots.count(i) for slots in placed_slots]
        if state.flipped:
            cards: list[list[str] | None] = [
                [c for c, s in zip(pc, ps, strict=True) if s == i]
                for pc, ps in zip(placed_cards, placed_slots, strict=True)
            ]
        else:
            # Face down until the flip (B-6): a seat sees only its own cards.
            cards = [None] * len(counts)
            if seat is not None:
                cards[seat] = [
                    c for c, s in zip(placed_cards[seat], placed_slots[seat], strict=True) if s == i
                ]
        out.append(
            {"slot": i, "country": country, "blocked": blocked[i], "counts": counts, "cards": cards}
        )
    return out


def observe(state: State, seat: int | None) -> dict[str, Any]:
    if seat is not None and (type(seat) is not int or not 0 <= seat < state.seats):
        # A negative index would otherwise read another seat's hand from the end of the list.
        raise ValueError(
            f"seat {seat!r} is not at this table: seats are 0..{state.seats - 1}, "
            "or None for the spectator view"
        )
    phase = state.phase
    effect = None
    if phase == PLACEMENT:
        pending = [{"seat": state.turn, "kind": PLACEMENT}]
    elif phase == EFFECT and state.activations:
        a = state.activations[0]
        pending = [{"seat": a["seat"], "kind": EFFECT}]
        effect = {"seat": a["seat"], "card": a["card"], "slot": a["slot"]}
    else:
        pending = []
    deck = state.country_deck
    known = state.known_top
    hand = agenda = score = None
    if seat is not None:
        hand = list(state.hands[seat])
        agenda = state.agendas[seat]
        score = deal_points(state.deals[seat], agenda)
    return {
        "seat": seat,
        "nations": list(state.nations),
        "round": state.round,
        # brexit-1 streams have no max_rounds: the engine applies the default to them.
        "max_rounds": state.options.get("max_rounds", ROUND_LIMIT),
        "start_seat": state.start_seat,
        "phase": phase,
        "pending": pending,
        "effect": effect,
        "hand": hand,
        "agenda": agenda,
        "score": score,
        "hand_sizes": [len(h) for h in state.hands],
        "deals": [list(d) for d in state.deals],
        "slots": _slots(state, seat),
        "known_top": deck[len(deck) - known :][::-1] if known else [],
        "deck_sizes": {
            "country": len(deck),
            "negotiation": len(state.negotiation_deck),
            "agenda": len(state.agenda_deck),
        },
        "country_discard": list(state.country_discard),
        "negotiation_discard": list(state.negotiation_discard),
        "removed": list(state.removed),
        # Copied so that a bot editing its observation cannot reach into the state.
        "result": copied(state.result),
    }
