"""Events as readable sentences for the replay viewer's log.

Each game tells its own events in its own words (``games/<name>/view``, found through
the registry); the platform's events (a bot's verdict, the end of a match, an abort)
are told here, the same for every game, and anything else by its type.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from games.engine.registry import get
from games.engine.view import Payload, SeatNarrator


class PlatformNarrator(SeatNarrator):
    """The platform's events, and a plain fallback for any event nobody words.

    ``people``: the seats a person plays, whose verdicts are a person's moves, not a bot's.
    """

    def __init__(self, labels: Sequence[str], people: Collection[int] = ()) -> None:
        super().__init__(labels)
        self.people = frozenset(people)

    def tell(self, type_: str, p: Payload) -> str | None:
        if type_ == "bot_verdict" and p.get("seat") in self.people:
            return self.person(p)
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

    def person(self, p: Payload) -> str:
        who = f"{self.who(p.get('seat'))} (a person)"
        if p.get("verdict") == "ok":
            return f"{who} decides."
        if p.get("verdict") == "timeout":
            return f"{who} ran out of time: the default action is played."
        return f"{who}: {p.get('verdict')}."

    def fallback(self, type_: str, p: Payload) -> str:
        words = type_.replace("_", " ").capitalize()
        if "seat" in p:
            return f"{words}: {self.who(p['seat'])}"
        return words


def seat_labels(game: str, seats: int, first_payload: Payload | None = None) -> list[str]:
    """What the log calls each seat (Brexit's nations, Bra$ilis' politicians): the game's say."""
    return get(game).view.seat_labels(seats, first_payload)


class Narration:
    """A match's log told one event at a time (the game's narrator keeps what it has told):
    ``backroom watch`` tells a live match's events as they come, page by page."""

    def __init__(self, game: str, labels: Sequence[str], people: Collection[int] = ()) -> None:
        self.narrator = get(game).view.narrator(labels)
        self.platform = PlatformNarrator(labels, people)

    def tell(self, type_: str, payload: Payload) -> str:
        try:
            text = self.narrator.tell(type_, payload) or self.platform.tell(type_, payload)
        except (KeyError, TypeError, ValueError, IndexError):
            text = None  # a payload the words did not expect (a redacted one): told plainly
        return text or self.platform.fallback(type_, payload)


def sentences(
    game: str,
    labels: Sequence[str],
    events: Iterable[tuple[str, Payload]],
    people: Collection[int] = (),
) -> list[str]:
    """One sentence per (type, payload-as-seen) pair, in order; ``people``: the seats a person
    plays."""
    narration = Narration(game, labels, people)
    return [narration.tell(type_, payload) for type_, payload in events]
