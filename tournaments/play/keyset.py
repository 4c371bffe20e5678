"""Match lists a page at a time by keyset (cursor), newest first: every page costs what the first does.

An offset page makes Postgres walk and drop every row before it, and a page count makes it count
the whole filtered table; both grow with the table, which grows by about a million matches a day
at the planned rate. A cursor names the last (or first) match shown, by ``(created_at, id)``, and
the next page is the matches just past it in the list's order, read from an index of that order
(migration 0026: ``match_newest`` and the filters' ``match_<filter>_newest``).

A cursor is opaque to clients: ``o`` (older than) or ``n`` (newer than), the match's creation
time and id, in URL-safe base64.
"""

from __future__ import annotations

import base64
import binascii
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from django.db.models import Q, QuerySet

if TYPE_CHECKING:
    from tournaments.play.models import Match

NEWEST_FIRST = ("-created_at", "-id")
"""Every match list's order; ``id`` breaks ties of ``created_at``."""
OLDER, NEWER = "o", "n"


class BadCursor(ValueError):
    """A cursor this list did not make (mangled, truncated, or from something else)."""


@dataclass(frozen=True)
class Page:
    matches: list[Match]
    older: str | None
    """The cursor of the next page (older matches), None on the last page."""
    newer: str | None
    """The cursor of the previous page (newer matches), None on the first page."""


def cursor(direction: str, match: Match) -> str:
    raw = f"{direction}|{match.created_at.isoformat()}|{match.pk}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode(value: str) -> tuple[str, datetime, uuid.UUID]:
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).decode()
        direction, when, pk = raw.split("|")
        at, match_id = datetime.fromisoformat(when), uuid.UUID(pk)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise BadCursor(
            "this cursor is not one of this list's: follow the next/previous links"
        ) from None
    if direction not in (OLDER, NEWER) or at.tzinfo is None:
        raise BadCursor("this cursor is not one of this list's: follow the next/previous links")
    return direction, at, match_id


def after(matches: QuerySet[Match], cursor: str | None) -> tuple[QuerySet[Match], str]:
    """The matches past ``cursor`` in the order they are read (from the cursor outwards), and
    the cursor's direction: older ones newest first, newer ones oldest first."""
    if not cursor:
        return matches.order_by(*NEWEST_FIRST), OLDER
    direction, at, match_id = _decode(cursor)
    if direction == OLDER:
        # created_at <= at bounds the index scan; the OR only drops the cursor's own ties.
        past = matches.filter(created_at__lte=at).filter(Q(created_at__lt=at) | Q(id__lt=match_id))
        return past.order_by(*NEWEST_FIRST), OLDER
    before = matches.filter(created_at__gte=at).filter(Q(created_at__gt=at) | Q(id__gt=match_id))
    return before.order_by("created_at", "id"), NEWER


def page(matches: QuerySet[Match], cursor_: str | None, size: int) -> Page:
    """The ``size`` matches of ``matches`` past the cursor ``cursor_`` (None: the newest)."""
    ordered, direction = after(matches, cursor_)
    rows = list(ordered[: size + 1])
    more = len(rows) > size
    shown = rows[:size]
    if direction == NEWER:
        shown.reverse()
        return Page(
            shown,
            cursor(OLDER, shown[-1]) if shown else None,
            cursor(NEWER, shown[0]) if more else None,
        )
    return Page(
        shown,
        cursor(OLDER, shown[-1]) if more else None,
        cursor(NEWER, shown[0]) if cursor_ and shown else None,
    )
