"""Match lists a page at a time by keyset (cursor), newest first: every page costs what the first does.

An offset page makes Postgres walk and drop every row before it, and a page count makes it count
the whole filtered table; both grow with the table, which grows by about a million matches a day
at the planned rate. A cursor names the last (or first) match shown, by ``(created_at, id)``, and
the next page is the matches just past it in the list's order, read from an index of that order
(migration 0026: ``match_newest`` and the filters' ``match_<filter>_newest``).

A bot's matches are read from its seats instead (``seat_bot_newest``, migration 0027): the
queryset carries the seat's copies of the same two keys as ``listed_at`` and ``listed_id``
(``selectors.matches``), and the page orders and compares those, which that index serves; a
bot seated twice in a match meets it twice there, and the page shows it once.

A cursor is opaque to clients: ``o`` (older than) or ``n`` (newer than), the match's creation
time in UTC and id, in URL-safe base64. A client may still change it, so a cursor whose time is
not in UTC is refused like any other the list did not make: the lists never write one, and an
offset Postgres cannot hold (beyond ±15:59) would otherwise fail in the database, a 500.
"""

from __future__ import annotations

import base64
import binascii
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.db.models import Q, QuerySet

if TYPE_CHECKING:
    from tournaments.play.models import Match

NEWEST_FIRST = ("-created_at", "-id")
"""Every match list's order; ``id`` breaks ties of ``created_at``."""
OLDER, NEWER = "o", "n"
BY_SEAT = ("listed_at", "listed_id")
"""The keys' names when a list is read from a bot's seats: their copies of the match's."""


def keys(matches: QuerySet[Match]) -> tuple[str, str]:
    """The names of the list's two keys, (created_at, id) or their copies on a bot's seats."""
    return BY_SEAT if BY_SEAT[0] in matches.query.annotations else ("created_at", "id")


def newest_first(matches: QuerySet[Match]) -> QuerySet[Match]:
    """``matches`` in the lists' order, by the keys its index serves."""
    at, pk = keys(matches)
    return matches.order_by(f"-{at}", f"-{pk}")


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
    if direction not in (OLDER, NEWER) or at.utcoffset() != timedelta(0):
        raise BadCursor("this cursor is not one of this list's: follow the next/previous links")
    return direction, at, match_id


def after(matches: QuerySet[Match], cursor: str | None) -> tuple[QuerySet[Match], str]:
    """The matches past ``cursor`` in the order they are read (from the cursor outwards), and
    the cursor's direction: older ones newest first, newer ones oldest first."""
    if not cursor:
        return newest_first(matches), OLDER
    direction, at, match_id = _decode(cursor)
    return _past(matches, direction, at, match_id), direction


def _past(matches: QuerySet[Match], direction: str, at: datetime, match_id: Any) -> QuerySet[Match]:
    when, pk = keys(matches)
    if direction == OLDER:
        # when <= at bounds the index scan; the OR only drops the cursor's own ties.
        past = matches.filter(**{f"{when}__lte": at}).filter(
            Q(**{f"{when}__lt": at}) | Q(**{f"{pk}__lt": match_id})
        )
        return past.order_by(f"-{when}", f"-{pk}")
    before = matches.filter(**{f"{when}__gte": at}).filter(
        Q(**{f"{when}__gt": at}) | Q(**{f"{pk}__gt": match_id})
    )
    return before.order_by(when, pk)


def _rows(matches: QuerySet[Match], cursor_: str | None, count: int) -> tuple[list[Match], str]:
    """The first ``count`` distinct matches past the cursor, and its direction. A list read
    from a bot's seats meets a match once per seat of the bot: past such a repeat, the next
    rows are read from the last row's keys (its repeats are all at those keys, so skipped)."""
    ordered, direction = after(matches, cursor_)
    rows: list[Match] = []
    seen: set[Any] = set()
    while True:
        wanted = count - len(rows)
        read = list(ordered[:wanted])
        for match in read:
            if match.pk not in seen:
                seen.add(match.pk)
                rows.append(match)
        if len(rows) >= count or len(read) < wanted:  # full, or the list ends here
            return rows, direction
        ordered = _past(matches, direction, read[-1].created_at, read[-1].pk)


def page(matches: QuerySet[Match], cursor_: str | None, size: int) -> Page:
    """The ``size`` matches of ``matches`` past the cursor ``cursor_`` (None: the newest)."""
    rows, direction = _rows(matches, cursor_, size + 1)
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
