"""Building events, and what one seat (or a spectator) may see of them."""

from __future__ import annotations

from collections.abc import Iterable

from games.engine.types import JSON, Event, Seat


def event(type: str, payload: JSON, *, actor: Seat | None = None) -> Event:  # noqa: A002
    """A public event: every seat and every spectator sees its payload."""
    return {"type": type, "actor": actor, "payload": payload, "visible_to": None, "redacted": None}


def private_event(
    type: str,  # noqa: A002 (the event's JSON key)
    payload: JSON,
    *,
    to: Iterable[Seat],
    redacted: JSON,
    actor: Seat | None = None,
) -> Event:
    """An event whose payload only ``to`` may see; everyone else sees ``redacted``.

    ``to`` may be empty (a shuffle's order is seen by nobody until the end).
    """
    return {
        "type": type,
        "actor": actor,
        "payload": payload,
        "visible_to": sorted(set(to)),
        "redacted": redacted,
    }


def can_see(ev: Event, seat: Seat | None) -> bool:
    """Whether ``seat`` (``None`` for a spectator) may see the full payload."""
    visible_to = ev["visible_to"]
    return visible_to is None or (seat is not None and seat in visible_to)


def view(ev: Event, seat: Seat | None, *, game_over: bool = False) -> Event:
    """The event as ``seat`` sees it: the payload, or its redacted form.

    After the game is over everything is revealed to everyone.
    """
    if game_over or can_see(ev, seat):
        return ev
    return redacted(ev)


def redacted(ev: Event) -> Event:
    """The event as one who may not see its payload sees it: the redacted form in its place."""
    return {
        "type": ev["type"],
        "actor": ev["actor"],
        "payload": ev["redacted"] or {},
        "visible_to": ev["visible_to"],
        "redacted": None,
    }
