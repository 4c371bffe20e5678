"""Events as readable sentences for the replay viewer's log.

Each game's events are told in the game's own words ("Scotland placed 2
face-down cards next to Japan"). A narrator reads the events in order, as a
viewer sees them (payload or redacted form), and keeps the little context a
sentence needs: nations per seat, the countries on the table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from games.brasilis.cards import NEWS, POWER_KIND
from games.brexit.cards import AGENDA_NAME, COUNTRY_NAME, NAME, NATION_NAME

Payload = dict[str, Any]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _join(items: Sequence[str]) -> str:
    if not items:
        return "nothing"
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


class _Narrator:
    def __init__(self, labels: Sequence[str]) -> None:
        self.labels = list(labels)

    def who(self, seat: Any) -> str:
        if isinstance(seat, int) and 0 <= seat < len(self.labels):
            return self.labels[seat]
        return f"seat {seat}"

    def platform(self, type_: str, p: Payload) -> str | None:
        if type_ == "bot_verdict":
            text = f"{self.who(p.get('seat'))}'s bot: {p.get('verdict')}"
            if p.get("strikes"):
                text += f" (strike {p['strikes']})"
            if p.get("detail"):
                text += f": {str(p['detail'])[:160]}"
            return text
        if type_ == "match_finished":
            if "seed" in p:
                return "The match is over; its seed is revealed."
            # Redacted: its duplicate deal's other matches still play the same cards.
            return "The match is over; its seed stays hidden until its duplicate deal is over."
        if type_ == "match_aborted":
            # The reason is redacted for those who may not read it: no dangling colon then.
            reason = str(p.get("reason") or "").strip()
            return f"The match was aborted: {reason}" if reason else "The match was aborted."
        return None

    def tell(self, type_: str, p: Payload) -> str:
        return self.platform(type_, p) or self.fallback(type_, p)

    def fallback(self, type_: str, p: Payload) -> str:
        words = type_.replace("_", " ").capitalize()
        if "seat" in p:
            return f"{words}: {self.who(p['seat'])}"
        return words


class BrexitNarrator(_Narrator):
    def __init__(self, labels: Sequence[str]) -> None:
        super().__init__(labels)
        self.slots: list[str] = []

    def country(self, slot: Any) -> str:
        if isinstance(slot, int) and 0 <= slot < len(self.slots):
            return COUNTRY_NAME.get(self.slots[slot], self.slots[slot])
        return f"slot {slot}"

    def tell(self, type_: str, p: Payload) -> str:
        if type_ == "game_started":
            nations = p.get("nations") or []
            self.labels = [NATION_NAME.get(n, n) for n in nations] or self.labels
            return f"A game for {_plural(len(nations), 'nation')}: {_join(self.labels)}."
        if type_ == "start_seat_chosen":
            return f"{self.who(p['seat'])} takes the starting-player token."
        if type_ in ("deck_shuffled", "discard_reshuffled"):
            size = p.get("size", len(p.get("order", [])))
            return f"The {p.get('deck', '')} deck is shuffled ({_plural(size, 'card')})."
        if type_ == "agenda_drawn":
            if "agenda" in p:
                return f"{self.who(p['seat'])} draws the secret agenda {AGENDA_NAME.get(p['agenda'], p['agenda'])}."
            return f"{self.who(p['seat'])} draws a secret agenda."
        if type_ == "cards_drawn":
            if "cards" in p:
                names = [NAME.get(c, c) for c in p["cards"]]
                return f"{self.who(p['seat'])} draws {_join(names)}."
            return f"{self.who(p['seat'])} draws {_plural(p.get('count', 0), 'card')}."
        if type_ == "round_started":
            return f"Round {p['round']} begins; {self.who(p['start_seat'])} starts."
        if type_ == "countries_revealed":
            self.slots = list(p["countries"])
            return "Revealed: " + _join([COUNTRY_NAME.get(c, c) for c in self.slots]) + "."
        if type_ == "cards_placed":
            seat = self.who(p["seat"])
            if "place" in p:
                if not p["place"]:
                    return f"{seat} places no cards."
                parts = [
                    f"{NAME.get(x['card'], x['card'])} next to {self.country(x['slot'])}"
                    for x in p["place"]
                ]
                return f"{seat} places {_join(parts)} (face down)."
            counts = p.get("counts") or []
            parts = [
                f"{_plural(n, 'face-down card')} next to {self.country(i)}"
                for i, n in enumerate(counts)
                if n
            ]
            return f"{seat} placed {_join(parts)}." if parts else f"{seat} places no cards."
        if type_ == "cards_flipped":
            return "All placed cards are flipped face up."
        if type_ == "effect_resolved":
            seat, effect = self.who(p["seat"]), p.get("effect", "")
            card = NAME.get(p.get("card", ""), p.get("card", ""))
            where = self.country(p.get("slot"))
            if effect == "block":
                return f"{seat}'s Block shuts {where} out of this round."
            if effect == "take" and p.get("deal"):
                return f"{seat} takes the trade deal {COUNTRY_NAME.get(p['deal'], p['deal'])} from {self.who(p.get('target'))}."
            if p.get("none") or effect == "none":
                return f"{seat} uses no effect of {card}."
            return f"{seat} resolves {card} at {where}."
        if type_ == "round_scored":
            wins = [
                f"{self.who(r['winner'])} wins {COUNTRY_NAME.get(r['country'], r['country'])}"
                for r in p.get("results", [])
                if r.get("winner") is not None
            ]
            return ("Scoring: " + _join(wins) + ".") if wins else "Scoring: no country is won."
        if type_ == "game_ended":
            scores = p.get("scores", [])
            return (
                "Game over. Scores: "
                + _join([f"{self.who(s)} {v}" for s, v in enumerate(scores)])
                + "."
            )
        return self.platform(type_, p) or self.fallback(type_, p)


class BrasilisNarrator(_Narrator):
    def power(self, card: Any) -> str:
        kind = POWER_KIND.get(card) if isinstance(card, str) else None
        if kind is None:
            return "a card"
        return f"influence {kind}" if kind.isdigit() else kind

    def news(self, card: Any) -> str:
        n = NEWS.get(card) if isinstance(card, str) else None
        return f"“{n.headline}”" if n else str(card)

    def tell(self, type_: str, p: Payload) -> str:
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
            src = "the bank" if p.get("from") is None else who(p["from"])
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
        if type_ == "game_over":
            votes = p.get("votes", [])
            return (
                "Game over. Votes: " + _join([f"{who(s)} {v}" for s, v in enumerate(votes)]) + "."
            )
        return self.platform(type_, p) or self.fallback(type_, p)


NARRATORS: dict[str, Callable[[Sequence[str]], Any]] = {
    "brexit": BrexitNarrator,
    "brasilis": BrasilisNarrator,
}


def seat_labels(game: str, seats: int, first_payload: Payload | None = None) -> list[str]:
    """What the log calls each seat: Brexit's nations, Bra$ilis' politicians."""
    if game == "brexit" and first_payload and first_payload.get("nations"):
        return [NATION_NAME.get(n, n) for n in first_payload["nations"]]
    return [f"Politician {s + 1}" if game == "brasilis" else f"Seat {s}" for s in range(seats)]


def sentences(game: str, labels: Sequence[str], events: Iterable[tuple[str, Payload]]) -> list[str]:
    """One sentence per (type, payload-as-seen) pair, in order."""
    narrator = NARRATORS.get(game, _Narrator)(labels)
    out = []
    for type_, payload in events:
        try:
            out.append(narrator.tell(type_, payload))
        except (KeyError, TypeError, ValueError, IndexError):
            out.append(narrator.fallback(type_, payload))
    return out
