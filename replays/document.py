"""The match document: one match's metadata and events as JSON.

``manage.py play --out`` writes it, the API serves it (in pages, each event as the
caller may see it: tournaments.play.selectors.match_document_page) and the replay viewer
reads it, so a locally played match and a stored one look the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from games.engine.types import Event, Outcome

FORMAT = "backroom-match/1"


def match_document(
    *,
    match_id: str | None,
    game: str,
    options: dict[str, Any] | None,
    seed: int | None,
    seats: Sequence[str],
    status: str,
    outcome: Outcome | None,
    events: Iterable[Event],
    first_version: int = 1,
) -> dict[str, Any]:
    """Metadata and events (numbered from ``first_version``) in the one format every reader uses.

    A page of a stored match starts after version 1; its pages joined are the whole document.
    """
    return {
        "format": FORMAT,
        "match": {
            "id": match_id,
            "game": game,
            "options": options,
            "seed": seed,
            "seats": list(seats),
            "status": status,
            "outcome": dict(outcome) if outcome is not None else None,
        },
        "events": [{"version": n, **ev} for n, ev in enumerate(events, start=first_version)],
    }
