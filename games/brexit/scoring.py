"""Winning slots (B-14) and the final score with agendas (B-19, B-20)."""

from __future__ import annotations

from typing import Any

from games.brexit.cards import AGENDA_SYMBOL, SYMBOLS, VALUE
from games.brexit.state import State


def slot_results(state: State) -> list[dict[str, Any]]:
    """Per slot: every seat's total, and the unique top bidder (None: discard)."""
    n = len(state.slots)
    totals = [[0] * state.seats for _ in range(n)]
    for seat in range(state.seats):
        for card, slot in zip(state.placed_cards[seat], state.placed_slots[seat], strict=True):
            totals[slot][seat] += VALUE[card]
    results = []
    for slot in range(n):
        row = totals[slot]
        best = max(row)
        # B-14: only a unique maximum wins; a shared maximum (so also all zeros) or a Block discards.
        winner = row.index(best) if row.count(best) == 1 and not state.blocked[slot] else None
        results.append(
            {
                "slot": slot,
                "country": state.slots[slot],
                "totals": row,
                "blocked": state.blocked[slot],
                "winner": winner,
            }
        )
    return results


def deal_points(deals: list[str], agenda: str | None) -> int:
    """B-19: 2 for a deal carrying the agenda's symbol (once, however many symbols), else 1."""
    if agenda is None:
        return len(deals)
    symbol = AGENDA_SYMBOL[agenda]
    return sum(2 if symbol in SYMBOLS[d] else 1 for d in deals)


def final_result(state: State, reason: str) -> dict[str, Any]:
    """Why the game ended, the scores, and ranks by score then more deals (B-20).

    Still tied means a shared rank. The same scoring applies however the game ended (B-31).
    """
    scores = [deal_points(state.deals[s], state.agendas[s]) for s in range(state.seats)]
    counts = [len(d) for d in state.deals]
    keys = [(scores[s], counts[s]) for s in range(state.seats)]
    ranks = [1 + sum(1 for k in keys if k > keys[s]) for s in range(state.seats)]
    return {
        "reason": reason,
        "scores": scores,
        "ranks": ranks,
        "detail": {
            "deals": counts,
            "agendas": list(state.agendas),
            "matching": [
                sum(1 for d in state.deals[s] if AGENDA_SYMBOL[a] in SYMBOLS[d])
                if (a := state.agendas[s])
                else 0
                for s in range(state.seats)
            ],
        },
    }
