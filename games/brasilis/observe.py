"""What one seat (or a spectator) may know: the information set as JSON (S-32, S-28).

Never the deck orders, the set-aside pool, other hands, other secret piles,
face-down values played by others, sealed bids of others, the seed or the
scenario options.
"""

from __future__ import annotations

from typing import Any

from games.brasilis.attribution import totals
from games.brasilis.cards import NEWS, POWER_KIND
from games.brasilis.state import Entry, State, effective

_SHOWN: dict[str, dict[str, str | None]] = {
    card: {"id": card, "kind": kind} for card, kind in POWER_KIND.items()
}
"""A card as an observation shows it; copied into each observation (copying beats building)."""

PUBLIC_OPTIONS = (
    "less_strategy",
    "media_control",
    "trading",
    "more_your_way",
    "image_max",
    "fury_max",
)


def _entry(e: Entry, seat: int | None, over: bool) -> dict[str, Any]:
    hidden = e["down"] and not over and seat != e["known_by"]
    card = e["card"]
    return {
        "card": None if hidden else card if card is not None else e.get("copy_of"),
        "kind": "hidden" if hidden else POWER_KIND[card] if card is not None else "palanque_copy",
        "value": None if hidden else effective(e),
        "multipliers": [POWER_KIND[m] for m in e["mult"]],
        "locked": e["locked"],
        "face_down": e["down"],
        "played_by": e["by"],
    }


def observe(state: State, seat: int | None) -> dict[str, Any]:
    n = state.n
    if seat is not None and (type(seat) is not int or not 0 <= seat < n):
        raise ValueError(
            f"{seat!r} is not a seat at this table: seats are 0..{n - 1}, or None for a spectator"
        )
    over = state.phase == "over"
    stacks = [[_entry(e, seat, over) for e in stack] if stack else [] for stack in state.stacks]
    hidden_any = any(e["value"] is None for stack in stacks for e in stack)
    deciding = state.news
    # (Between a Lawyer's use and the next step the pile may be empty: the News has left it.)
    if (
        deciding is None
        and state.phase == "lawyer"
        and state.attributed is not None
        and state.piles[state.attributed]
    ):
        deciding = state.piles[state.attributed][-1]  # just attributed, in public (S-18)
    news = NEWS[deciding].public() if deciding else None
    auction = None
    if state.shown_aids or state.auction_aid:
        auction = {
            "shown": list(state.shown_aids),
            "lot": state.auction_aid,
            "eligible": [s for s in range(n) if state.eligible[s]],
            "my_bid": state.bids[seat] if seat is not None and state.auction_aid else None,
            "bids_in": [s for s in range(n) if state.bids[s] is not None],
        }
    image, money, rank = state.image, state.money, state.wallet_rank
    trade = None
    if state.trade is not None:
        t = state.trade
        mine = seat in (t["from"], t["to"])
        trade = {**t, "cards": list(t["cards"]) if mine else len(t["cards"])}
    obs: dict[str, Any] = {
        "game": "brasilis",
        "seat": seat,
        "options": {k: v for k, v in state.options.items() if k != "scenario"},
        "phase": state.phase,
        "pending": [{"seat": s, "kind": state.phase} for s in state.waiting],
        "round": state.round,
        "rounds": state.rounds,
        "chief": state.chief,
        "wallet_order": _wallet_order(state),
        "revealer": state.revealer,
        "news": news,
        "image": list(state.image),
        "money": list(state.money),
        "bank": state.bank,
        "fury": state.fury,
        "hand": [_SHOWN[c].copy() for c in sorted(state.hands[seat])] if seat is not None else None,
        "hand_sizes": [len(h) for h in state.hands],
        "stacks": stacks,
        "influence": None if hidden_any else totals(state),
        "passed": list(state.passed),
        "played": list(state.played),
        "tied": list(state.tied),
        "aids": dict(state.aid_owner),
        "aids_used": [a for a, used in state.aid_used.items() if used],
        "auction": auction,
        "trade": trade,
        "offered": list(state.offered) if seat is not None and seat == state.revealer else [],
        "my_news": list(state.piles[seat]) if seat is not None else None,
        "news_counts": [len(p) for p in state.piles],
        "power_deck_size": len(state.power_deck),
        "power_discard": _discard(state, seat),
        "power_discard_size": len(state.power_discard),
        "news_deck_size": len(state.news_deck),
        "pool_size": len(state.pool),
        "news_discard": list(state.news_discard),
        "removed_count": len(state.removed),
        "tie_break_order": sorted(range(n), key=lambda s: (-image[s], -money[s], rank[s])),
        "result": state.result,
    }
    return obs


def _discard(state: State, seat: int | None) -> list[dict[str, str | None]]:
    """The public Power discard (S-32), oldest first; a face-down card eliminated on this
    news shows as hidden to all but its player until the reveal (S-36)."""
    down = state.discarded_down
    if not down:
        return [_SHOWN[card].copy() for card in state.power_discard]
    return [
        {"id": None, "kind": "hidden"}
        if card in down and down[card] != seat
        else _SHOWN[card].copy()
        for card in state.power_discard
    ]


def _wallet_order(state: State) -> list[int]:
    order = [0] * state.n
    for seat, rank in enumerate(state.wallet_rank):
        order[rank] = seat
    return order
