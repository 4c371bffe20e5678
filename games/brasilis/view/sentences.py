"""Bra$ilis' events as the replay viewer's log tells them, in the game's own words.

The narrator reads the events in order, as a viewer sees them (payload or redacted
form): a face-down card stays "a face-down card". Events it does not know (the
platform's) it leaves to the platform (``None``).

Each event type has one sentence in :data:`SENTENCES`, a function of the narrator (which
names seats, power cards and news) and the payload; the table reads in the order a round
plays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.brasilis.cards import NEWS, POWER_KIND
from games.engine.view import Payload, SeatNarrator
from games.engine.view import join as _join
from games.engine.view import plural as _plural


class BrasilisNarrator(SeatNarrator):
    def power(self, card: Any) -> str:
        kind = POWER_KIND.get(card) if isinstance(card, str) else None
        if kind is None:
            return "a card"
        return f"influence {kind}" if kind.isdigit() else kind

    def news(self, card: Any) -> str:
        n = NEWS.get(card) if isinstance(card, str) else None
        return f"“{n.headline}”" if n else str(card)

    def seats(self, seats: Any) -> str:
        return _join([self.who(s) for s in seats])

    def tell(self, type_: str, p: Payload) -> str | None:
        sentence = SENTENCES.get(type_)
        return sentence(self, p) if sentence else None


Sentence = Callable[[BrasilisNarrator, Payload], str]


def _shuffled(deck: str) -> Sentence:
    def sentence(n: BrasilisNarrator, p: Payload) -> str:
        size = p.get("size", len(p.get("order", [])))
        return f"The {deck} deck is shuffled ({_plural(size, 'card')})."

    return sentence


def _dealt(n: BrasilisNarrator, p: Payload) -> str:
    if "cards" in p:  # the seat's own cards; the others see a count
        return f"{n.who(p['seat'])} is dealt {_join([n.power(c) for c in p['cards']])}."
    return f"{n.who(p['seat'])} is dealt {_plural(p.get('count', 0), 'card')}."


def _paid(n: BrasilisNarrator, p: Payload) -> str:
    src = "The bank" if p.get("from") is None else n.who(p["from"])
    dst = "the bank" if p.get("to") is None else n.who(p["to"])
    return f"{src} pays ${p['amount']} to {dst} ({p.get('reason', '')})."


def _card_played(n: BrasilisNarrator, p: Payload) -> str:
    if p.get("card") is None or p.get("value") is None:
        return f"{n.who(p['seat'])} plays a face-down card on {n.who(p['target'])}."
    down = " face down" if p.get("face_down") else ""
    return f"{n.who(p['seat'])} plays {n.power(p['card'])}{down} on {n.who(p['target'])}."


def _bid(n: BrasilisNarrator, p: Payload) -> str:
    if "amount" in p:  # the bidder's own view; the others see that a bid was placed
        return f"{n.who(p['seat'])} bids ${p['amount']} (sealed)."
    return f"{n.who(p['seat'])} places a sealed bid."


def _bids_revealed(n: BrasilisNarrator, p: Payload) -> str:
    bids = [f"{n.who(s)} ${b}" for s, b in enumerate(p.get("bids", [])) if b is not None]
    return f"Bids for the {p['aid']}: {_join(bids)}."


def _news_lost(n: BrasilisNarrator, p: Payload) -> str:
    lost = n.news(p["card"]) if "card" in p else "a news card"
    return f"{n.who(p['seat'])} loses {lost}."


def _refill(n: BrasilisNarrator, p: Payload) -> str:
    holders = p["holders"]
    if holders == 0:
        return "No politician holds influence cards: every hand is refilled."
    verb = "holds" if holders == 1 else "hold"
    return f"Only {_plural(holders, 'politician')} {verb} influence cards: every hand is refilled."


def _round_ended(n: BrasilisNarrator, p: Payload) -> str:
    left = p.get("leftover", 0)
    if not left:
        return f"Round {p['round']} ends."
    verb = "leaves" if left == 1 else "leave"
    return f"Round {p['round']} ends; {_plural(left, 'unrevealed news card')} {verb} the game."


def _game_over(n: BrasilisNarrator, p: Payload) -> str:
    votes = [f"{n.who(s)} {v}" for s, v in enumerate(p.get("votes", []))]
    return f"Game over. Votes: {_join(votes)}."


SENTENCES: dict[str, Sentence] = {
    "game_started": lambda n, p: (
        f"A game for {_plural(p.get('seats', 0), 'politician')}, "
        f"{_plural(p.get('rounds', 0), 'round')}."
    ),
    "wallet_order": lambda n, p: (
        f"Wallet order: {n.seats(p['order'])}; {n.who(p['chief'])} is chief."
    ),
    "power_shuffled": _shuffled("power"),
    "news_shuffled": _shuffled("news"),
    "dealt": _dealt,
    "round_started": lambda n, p: (
        f"Round {p['round']} begins; {n.who(p['revealer'])} reveals the news."
    ),
    "news_set_aside": lambda n, p: (
        f"{_plural(p.get('count', len(p.get('cards', []))), 'news card')} go to the pizza."
    ),
    "paid": _paid,
    "news_revealed": lambda n, p: f"{n.who(p['revealer'])} reveals {n.news(p['news'])}.",
    "news_offered": lambda n, p: f"{n.who(p.get('seat'))} is offered news.",
    "awaiting": lambda n, p: f"Waiting for {n.seats(p.get('seats', []))} ({p.get('kind', '')}).",
    # The dispute.
    "passed": lambda n, p: f"{n.who(p['seat'])} passes.",
    "skipped": lambda n, p: f"{n.who(p['seat'])} has passed and is skipped.",
    "card_played": _card_played,
    "modifier_played": lambda n, p: (
        f"{n.who(p['seat'])} plays {p.get('kind')} on {n.who(p['target'])}'s last card."
    ),
    "eliminated": lambda n, p: (
        f"{n.who(p['seat'])} eliminates the top card of {n.who(p['target'])}."
    ),
    "repositioned": lambda n, p: (
        f"{n.who(p['seat'])} moves {n.who(p['target'])}'s last card to {n.who(p['destination'])}."
    ),
    "faces_revealed": lambda n, p: (
        f"{_plural(len(p.get('entries', [])), 'face-down card')} turned face up."
    ),
    "tie": lambda n, p: f"Tie between {n.seats(p.get('tied', []))}.",
    "news_attributed": lambda n, p: f"{n.news(p['news'])} goes to {n.who(p['seat'])}.",
    "dispute_cleared": lambda n, p: "The dispute's cards go to the discard pile.",
    # Image, Fury and revolutions.
    "image": lambda n, p: f"{n.who(p['seat'])}'s image: {p['value']:+d} ({p.get('reason', '')}).",
    "fury": lambda n, p: f"The Fury track moves to {p['value']}.",
    "revolution": lambda n, p: (
        f"Revolution ({p.get('cause', '')}): {n.seats(p.get('worst', []))} lose news."
    ),
    "news_lost": _news_lost,
    "news_removed": lambda n, p: f"{n.news(p['news'])} is removed from the game.",
    # Aids and their auctions.
    "aids_drawn": lambda n, p: f"Aids on offer: {_join(p.get('aids', []))}.",
    "auction_opened": lambda n, p: f"{n.who(p.get('chooser'))} puts the {p['aid']} up for auction.",
    "bid": _bid,
    "bids_revealed": _bids_revealed,
    "aid_bought": lambda n, p: f"{n.who(p['seat'])} buys the {p['aid']} for ${p['price']}.",
    "aid_discarded": lambda n, p: f"No bid reaches the minimum: the {p['aid']} is discarded.",
    "auction_closed": lambda n, p: "The auction closes.",
    "aid_used": lambda n, p: f"{n.who(p['seat'])} uses the {p['aid']}.",
    "lawyer_used": lambda n, p: (
        f"{n.who(p['seat'])} pays the lawyer: {n.news(p['news'])} is cancelled."
    ),
    "lawyer_declined": lambda n, p: f"{n.who(p['seat'])} does not pay the lawyer.",
    "extra_vote": lambda n, p: f"{n.who(p['seat'])} takes an extra vote card.",
    # The round's and the game's end.
    "refill": _refill,
    "round_ended": _round_ended,
    "game_over": _game_over,
}
"""Each event type the game tells, and its sentence."""


def seat_labels(seats: int, first_payload: Payload | None) -> list[str]:
    """The seats as the game calls its players: Politician 1, 2, ..."""
    return [f"Politician {s + 1}" for s in range(seats)]
