"""Brexit's events as the replay viewer's log tells them, in the game's own words.

"Scotland placed 2 face-down cards next to Japan". The narrator reads the events in
order, as a viewer sees them (payload or redacted form), and keeps the little context a
sentence needs: the nations per seat, the countries on the table. Events it does not
know (the platform's) it leaves to the platform (``None``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.brexit.cards import AGENDA_NAME, COUNTRY_NAME, NAME, NATION_NAME
from games.engine.view import Payload, SeatNarrator
from games.engine.view import join as _join
from games.engine.view import plural as _plural


class BrexitNarrator(SeatNarrator):
    def __init__(self, labels: Sequence[str]) -> None:
        super().__init__(labels)
        self.slots: list[str] = []

    def country(self, slot: Any) -> str:
        if isinstance(slot, int) and 0 <= slot < len(self.slots):
            return COUNTRY_NAME.get(self.slots[slot], self.slots[slot])
        return f"slot {slot}"

    def tell(self, type_: str, p: Payload) -> str | None:
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
        return None


def seat_labels(seats: int, first_payload: Payload | None) -> list[str]:
    """The seats by their nations (named in the opening event), else by number."""
    if first_payload and first_payload.get("nations"):
        return [NATION_NAME.get(n, n) for n in first_payload["nations"]]
    return [f"Seat {s}" for s in range(seats)]
