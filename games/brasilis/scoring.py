"""The final count (S-29, S-30) and the outcome."""

from __future__ import annotations

from typing import Any

from games.brasilis import tiebreak
from games.brasilis.cards import EXTRA_VOTE_VALUE, NEWS
from games.brasilis.state import State


def votes(state: State, seat: int) -> int:
    """News votes, or 3 with no News card at all, plus Extra Votes (S-29, E-S7)."""
    pile = state.piles[seat]
    news = [c for c in pile if c in NEWS]
    extra = (len(pile) - len(news)) * EXTRA_VOTE_VALUE
    return (sum(NEWS[c].votes for c in news) if news else 3) + extra


def final(state: State) -> dict[str, Any]:
    n = state.n
    tally = [votes(state, s) for s in range(n)]
    order = sorted(range(n), key=lambda s: (-tally[s], *tiebreak.key(state, s)))  # S-30
    ranks = [0] * n
    for place, seat in enumerate(order):
        ranks[seat] = place + 1
    return {
        "votes": tally,
        "ranks": ranks,
        "order": order,
        "news_counts": [sum(1 for c in state.piles[s] if c in NEWS) for s in range(n)],
        "piles": [list(p) for p in state.piles],
        "image": list(state.image),
        "money": list(state.money),
    }
