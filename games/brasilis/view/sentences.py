"""Bra$ilis' events as the replay viewer's log tells them, in the game's own words.

The narrator reads the events in order, as a viewer sees them (payload or redacted
form): a face-down card stays "a face-down card". Events it does not know (the
platform's) it leaves to the platform (``None``).
"""

from __future__ import annotations

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

    def tell(self, type_: str, p: Payload) -> str | None:
        who = self.who
        if type_ == "game_started":
            return f"A game for {_plural(p.get('seats', 0), 'politician')}, {_plural(p.get('rounds', 0), 'round')}."
        if type_ == "wallet_order":
            return (
                f"Wallet order: {_join([who(s) for s in p['order']])}; {who(p['chief'])} is chief."
            )
        if type_ in ("power_shuffled", "news_shuffled"):
            deck = "power" if type_ == "power_shuffled" else "news"
            size = p.get("size", len(p.get("order", [])))
            return f"The {deck} deck is shuffled ({_plural(size, 'card')})."
        if type_ == "dealt":
            if "cards" in p:
                return f"{who(p['seat'])} is dealt {_join([self.power(c) for c in p['cards']])}."
            return f"{who(p['seat'])} is dealt {_plural(p.get('count', 0), 'card')}."
        if type_ == "round_started":
            return f"Round {p['round']} begins; {who(p['revealer'])} reveals the news."
        if type_ == "news_set_aside":
            return (
                f"{_plural(p.get('count', len(p.get('cards', []))), 'news card')} go to the pizza."
            )
        if type_ == "paid":
            src = "The bank" if p.get("from") is None else who(p["from"])
            dst = "the bank" if p.get("to") is None else who(p["to"])
            return f"{src} pays ${p['amount']} to {dst} ({p.get('reason', '')})."
        if type_ == "news_revealed":
            return f"{who(p['revealer'])} reveals {self.news(p['news'])}."
        if type_ == "news_offered":
            return f"{who(p.get('seat'))} is offered news."
        if type_ == "awaiting":
            return (
                f"Waiting for {_join([who(s) for s in p.get('seats', [])])} ({p.get('kind', '')})."
            )
        if type_ == "passed":
            return f"{who(p['seat'])} passes."
        if type_ == "card_played":
            if p.get("card") is None or p.get("value") is None:
                return f"{who(p['seat'])} plays a face-down card on {who(p['target'])}."
            down = " face down" if p.get("face_down") else ""
            return f"{who(p['seat'])} plays {self.power(p['card'])}{down} on {who(p['target'])}."
        if type_ == "modifier_played":
            return f"{who(p['seat'])} plays {p.get('kind')} on {who(p['target'])}'s last card."
        if type_ == "eliminated":
            return f"{who(p['seat'])} eliminates the top card of {who(p['target'])}."
        if type_ == "repositioned":
            return (
                f"{who(p['seat'])} moves {who(p['target'])}'s last card to {who(p['destination'])}."
            )
        if type_ == "faces_revealed":
            return f"{_plural(len(p.get('entries', [])), 'face-down card')} turned face up."
        if type_ == "news_attributed":
            return f"{self.news(p['news'])} goes to {who(p['seat'])}."
        if type_ == "image":
            return f"{who(p['seat'])}'s image: {p['value']:+d} ({p.get('reason', '')})."
        if type_ == "fury":
            return f"The Fury track moves to {p['value']}."
        if type_ == "tie":
            return f"Tie between {_join([who(s) for s in p.get('tied', [])])}."
        if type_ == "aids_drawn":
            return f"Aids on offer: {_join(p.get('aids', []))}."
        if type_ == "auction_opened":
            return f"{who(p.get('chooser'))} puts the {p['aid']} up for auction."
        if type_ == "bid":
            if "amount" in p:
                return f"{who(p['seat'])} bids ${p['amount']} (sealed)."
            return f"{who(p['seat'])} places a sealed bid."
        if type_ == "bids_revealed":
            return (
                f"Bids for the {p['aid']}: "
                + _join(
                    [f"{who(s)} ${b}" for s, b in enumerate(p.get("bids", [])) if b is not None]
                )
                + "."
            )
        if type_ == "aid_bought":
            return f"{who(p['seat'])} buys the {p['aid']} for ${p['price']}."
        if type_ == "aid_used":
            return f"{who(p['seat'])} uses the {p['aid']}."
        if type_ == "revolution":
            return f"Revolution ({p.get('cause', '')}): {_join([who(s) for s in p.get('worst', [])])} lose news."
        if type_ == "skipped":
            return f"{who(p['seat'])} has passed and is skipped."
        if type_ == "dispute_cleared":
            return "The dispute's cards go to the discard pile."
        if type_ == "lawyer_used":
            return f"{who(p['seat'])} pays the lawyer: {self.news(p['news'])} is cancelled."
        if type_ == "lawyer_declined":
            return f"{who(p['seat'])} does not pay the lawyer."
        if type_ == "news_lost":
            lost = self.news(p["card"]) if "card" in p else "a news card"
            return f"{who(p['seat'])} loses {lost}."
        if type_ == "news_removed":
            return f"{self.news(p['news'])} is removed from the game."
        if type_ == "aid_discarded":
            return f"No bid reaches the minimum: the {p['aid']} is discarded."
        if type_ == "auction_closed":
            return "The auction closes."
        if type_ == "extra_vote":
            return f"{who(p['seat'])} takes an extra vote card."
        if type_ == "refill":
            n = p["holders"]
            if n == 0:
                return "No politician holds influence cards: every hand is refilled."
            verb = "holds" if n == 1 else "hold"
            return (
                f"Only {_plural(n, 'politician')} {verb} influence cards: every hand is refilled."
            )
        if type_ == "round_ended":
            left = p.get("leftover", 0)
            verb = "leaves" if left == 1 else "leave"
            unrevealed = (
                f"; {_plural(left, 'unrevealed news card')} {verb} the game" if left else ""
            )
            return f"Round {p['round']} ends{unrevealed}."
        if type_ == "game_over":
            votes = p.get("votes", [])
            return (
                "Game over. Votes: " + _join([f"{who(s)} {v}" for s, v in enumerate(votes)]) + "."
            )
        return None


def seat_labels(seats: int, first_payload: Payload | None) -> list[str]:
    """The seats as the game calls its players: Politician 1, 2, ..."""
    return [f"Politician {s + 1}" for s in range(seats)]
