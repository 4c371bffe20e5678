"""Reads: what a given user may see. Views filter through these so visibility rules live in one place.

Anything a user may not see is simply absent from their querysets, so the API
answers 404 for another user's private bot exactly as for one that never existed.

Two kinds of secret, with different lifetimes:

* hidden cards (hands, decks, face-down cards): a seat's own, until the match is
  finished; then everyone's. Nobody sees another seat's before, staff included.
* diagnostics (verdict details, tracebacks, stderr, validation errors, an abort's
  reason): the bot's owner's, always; staff's too once the match is over. Everyone
  else sees the verdict kind and the step.

Results (a match's status, outcome, seats' ranks and scores) are written by a database
trigger when the final event is appended, not by Python: see models.Match.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import psycopg
from django.db import connection
from django.db.models import OuterRef, Q, QuerySet, Subquery

from games.engine.events import can_see
from games.engine.platform_events import BOT_VERDICT, MATCH_ABORTED
from games.engine.types import Event
from replays import store
from replays.document import match_document
from tournaments.models import Bot, BotLog, BotVersion, Match, Seat


def _is_staff(user: Any) -> bool:
    return bool(user is not None and user.is_authenticated and user.is_staff)


def _user_id(user: Any) -> int | None:
    return user.pk if user is not None and user.is_authenticated else None


def bots_visible_to(user: Any) -> QuerySet[Bot]:
    """Everyone sees active public bots; owners also see their private and deactivated ones."""
    qs = Bot.objects.select_related("owner")
    if _is_staff(user):
        return qs
    listed = Q(is_public=True, is_active=True)
    uid = _user_id(user)
    return qs.filter(listed | Q(owner_id=uid)) if uid is not None else qs.filter(listed)


def bots_owned_by(user: Any) -> QuerySet[Bot]:
    """Bots ``user`` may change: their own (staff: all)."""
    qs = Bot.objects.select_related("owner")
    if _is_staff(user):
        return qs
    uid = _user_id(user)
    return qs.filter(owner_id=uid) if uid is not None else qs.none()


def bots_listed(user: Any, *, writable: bool = False, game: str | None = None) -> QuerySet[Bot]:
    """Bots newest first: those ``user`` may see, or (``writable``) may change; of one game."""
    qs = bots_owned_by(user) if writable else bots_visible_to(user)
    if game:
        qs = qs.filter(game=game)
    return qs.order_by("-created_at", "-id")


def versions_visible_to(user: Any) -> QuerySet[BotVersion]:
    """Versions of bots the user may see; their metadata only, the source is owner-only.

    Each carries ``smoke_match_id``: its latest validation run (shown to the owner only).
    """
    latest_smoke = Match.objects.filter(validation_of=OuterRef("pk")).order_by("-created_at")
    return (
        BotVersion.objects.filter(bot__in=bots_visible_to(user))
        .select_related("bot")
        .annotate(smoke_match_id=Subquery(latest_smoke.values("id")[:1]))
    )


def versions_of(user: Any, bot_id: int) -> QuerySet[BotVersion] | None:
    """A visible bot's versions, newest first; None if the bot is not visible to ``user``."""
    if not bots_visible_to(user).filter(pk=bot_id).exists():
        return None
    return versions_visible_to(user).filter(bot_id=bot_id).order_by("-number")


def can_read_source(user: Any, bot: Bot) -> bool:
    return _is_staff(user) or (_user_id(user) is not None and bot.owner_id == _user_id(user))


def can_read_diagnostics(user: Any, bot: Bot) -> bool:
    """A version's validation error and smoke match: the bot's owner's and staff's."""
    return can_read_source(user, bot)


def matches_visible_to(user: Any) -> QuerySet[Match]:
    """Every match, except smoke matches (a version's validation run) of other users' bots."""
    qs = Match.objects.all()
    if _is_staff(user):
        return qs
    uid = _user_id(user)
    if uid is None:
        return qs.filter(validation_of__isnull=True)
    return qs.filter(Q(validation_of__isnull=True) | Q(validation_of__bot__owner_id=uid))


def matches(
    *,
    user: Any = None,
    game: str | None = None,
    bot: int | None = None,
    status: str | None = None,
    season: int | None = None,
    ladder: int | None = None,
) -> QuerySet[Match]:
    """Matches ``user`` may see (None: as anonymous), newest first, filtered; results are public."""
    qs = (
        matches_visible_to(user)
        .select_related("created_by")
        .prefetch_related("seats__bot_version__bot__owner")
        .order_by("-created_at", "id")
    )
    if game:
        qs = qs.filter(game=game)
    if status:
        qs = qs.filter(status=status)
    if season is not None:
        qs = qs.filter(season_id=season)
    if ladder is not None:
        qs = qs.filter(ladder_id=ladder)
    if bot is not None:
        qs = qs.filter(pk__in=Seat.objects.filter(bot_version__bot_id=bot).values("match_id"))
    return qs


def match_detail(match_id: uuid.UUID | str, user: Any = None) -> QuerySet[Match]:
    """The match (if ``user`` may see it) with what its serializer reads, prefetched."""
    return (
        matches_visible_to(user)
        .filter(pk=match_id)
        .select_related("created_by")
        .prefetch_related("seats__bot_version__bot__owner")
    )


def seats_owned_by(user: Any, match: Match) -> set[int]:
    """Seat numbers of ``match`` played by versions of ``user``'s bots."""
    uid = _user_id(user)
    if uid is None:
        return set()
    return set(
        Seat.objects.filter(match=match, bot_version__bot__owner_id=uid).values_list(
            "number", flat=True
        )
    )


def is_over(match: Match) -> bool:
    """Finished or aborted: nothing more will be played, so staff may read its diagnostics."""
    return match.status in (Match.Status.FINISHED, Match.Status.ABORTED)


def can_read_error(user: Any, match: Match) -> bool:
    """An abort's reason: the owners of the match's bots, whoever created it, and staff.

    Reads the match's seats (prefetch ``seats__bot_version__bot`` for lists).
    The reason can quote an exception from inside the platform, so it is not public;
    everyone else sees that the match was aborted.
    """
    uid = _user_id(user)
    if _is_staff(user):
        return True
    if uid is None:
        return False
    if match.created_by_id == uid:
        return True
    return any(
        seat.bot_version is not None and seat.bot_version.bot.owner_id == uid
        for seat in match.seats.all()
    )


def logs_for(user: Any, match: Match) -> QuerySet[BotLog]:
    """Bot logs of the seats the user owns; staff: every seat's, once the match is over.

    Before the end a line of stderr can quote the bot's hand, which staff must not read.
    """
    qs = BotLog.objects.filter(match=match).order_by("version", "seat", "id")
    if _is_staff(user) and is_over(match):
        return qs
    return qs.filter(seat__in=seats_owned_by(user, match))


# The match document, as one user may see it


EVENTS_PAGE_SIZE = 1000
"""Events per page by default: about 150 kB of JSON for Brexit, some 80 ms to serve."""
EVENTS_PAGE_MAX = 5000


class NoSuchView(LookupError):
    """The caller may not see the match from that seat (or the seat does not exist)."""


@dataclass(frozen=True)
class MatchView:
    """What one caller may see of one match's events."""

    card_seats: frozenset[int]
    """Whose hidden cards are shown while the match is not finished."""
    diagnostic_seats: frozenset[int]
    """Whose verdict details are shown."""
    reads_error: bool
    """Whether the abort's reason is shown."""
    game_over: bool
    """Finished: every seat's hidden cards are shown."""


def match_view(user: Any, match: Match, seat: int | None = None) -> MatchView:
    """The caller's view of ``match``: by default their own seats' (none for spectators).

    ``seat`` narrows it to one seat's view, which before the end only that seat's
    owner may take. Staff see no hidden card before the end either, and read every
    seat's diagnostics once the match is over.
    """
    seats = list(match.seats.all())
    numbers = {s.number for s in seats}
    if seat is not None and seat not in numbers:
        raise NoSuchView(f"this match has no seat {seat}")
    uid = _user_id(user)
    owned = frozenset(
        s.number
        for s in seats
        if uid is not None and s.bot_version is not None and s.bot_version.bot.owner_id == uid
    )
    game_over = match.status == Match.Status.FINISHED
    if seat is not None and seat not in owned and not game_over:
        raise NoSuchView(f"seat {seat}'s view is its owner's until the match is finished")
    cards = owned if seat is None else frozenset({seat}) & owned
    diagnostics = cards  # before the end, a verdict's detail can quote the bot's hand
    if is_over(match):
        diagnostics = frozenset(numbers) if _is_staff(user) else owned
    return MatchView(
        card_seats=cards,
        diagnostic_seats=diagnostics,
        reads_error=can_read_error(user, match),
        game_over=game_over,
    )


def _hidden(ev: Event) -> Event:
    return {
        "type": ev["type"],
        "actor": ev["actor"],
        "payload": ev["redacted"] or {},
        "visible_to": ev["visible_to"],
        "redacted": None,
    }


def _sees_any(ev: Event, seats: Collection[int]) -> bool:
    return can_see(ev, None) or any(can_see(ev, s) for s in seats)


def seen(ev: Event, view: MatchView) -> Event:
    """The event as ``view`` may see it: whole, or its redacted form."""
    if ev["type"] == BOT_VERDICT:
        full = any(s in view.diagnostic_seats for s in ev["visible_to"] or ())
    elif ev["type"] == MATCH_ABORTED:
        full = view.reads_error
    else:
        full = view.game_over or _sees_any(ev, view.card_seats)
    return ev if full else _hidden(ev)


def seat_labels(match_id: uuid.UUID | str) -> list[str]:
    """The stored match's seats as its document names them, in seat order."""
    seats = Seat.objects.filter(match_id=match_id).select_related("bot_version__bot")
    return [seat.label for seat in seats.order_by("number")]


def document_header(match: Match) -> dict[str, Any]:
    """The document's ``format`` and ``match``; options and seed stay secret until the end."""
    finished = match.status == Match.Status.FINISHED
    return match_document(
        match_id=str(match.pk),
        game=match.game,
        options=match.options if finished else None,
        seed=match.seed if finished else None,
        seats=[seat.label for seat in match.seats.all()],
        status=match.status,
        outcome=match.outcome,
        events=(),
    )


def match_document_page(
    *,
    user: Any,
    match: Match,
    seat: int | None = None,
    after: int = 0,
    limit: int = EVENTS_PAGE_SIZE,
) -> tuple[dict[str, Any], bool]:
    """The match document's events after version ``after``, at most ``limit``, as ``user`` sees them.

    Returns the page (the header, its events and the view's seats) and whether more
    events are stored after it. Raises NoSuchView. ``match`` should have its seats
    prefetched with their versions' bots (``match_detail``).
    """
    view = match_view(user, match, seat)
    limit = max(1, min(limit, EVENTS_PAGE_MAX))
    rows = store.read(match.pk, from_version=after + 1, to_version=after + limit + 1)
    more = len(rows) > limit
    page = document_header(match)
    page["events"] = [
        {"version": row.version, **seen(row.as_engine_event(), view)} for row in rows[:limit]
    ]
    page["view"] = {"seats": sorted(view.card_seats), "game_over": view.game_over}
    return page, more


_MATCH_FIELDS = ["id", "game", "options", "seed", "status", "last_version"]
_SEAT_FIELDS = ["id", "match_id", "number", "bot_version_id", "builtin"]
_MATCH_TO_PLAY = (
    f"SELECT {', '.join('m.' + f for f in _MATCH_FIELDS)}, {', '.join('s.' + f for f in _SEAT_FIELDS)}"
    " FROM tournaments_seat s JOIN tournaments_match m ON m.id = s.match_id"
    " WHERE s.match_id = %s ORDER BY s.number"
)


def match_to_play(match_id: uuid.UUID) -> tuple[Match, list[Seat]] | None:
    """The match and its seats, with only what the runner needs, in one query.

    The runner calls this once per match; the ORM's version of the same join
    cost about a millisecond, as much as writing a short match's events.
    Other fields load on access, as with ``only()``.
    """
    connection.ensure_connection()
    # A server-side prepared statement on the bare connection: a worker runs it for every match.
    with psycopg.Cursor(connection.connection) as cur:
        cur.execute(_MATCH_TO_PLAY, [match_id], prepare=True)
        rows = cur.fetchall()
    if not rows:
        return None
    split = len(_MATCH_FIELDS)
    options = rows[0][2]
    match_values = list(rows[0][:split])
    match_values[2] = json.loads(options) if isinstance(options, str) else options
    match = Match.from_db("default", _MATCH_FIELDS, match_values)
    seats = []
    for row in rows:
        seat = Seat.from_db("default", _SEAT_FIELDS, row[split:])
        seat.match = match
        seats.append(seat)
    return match, seats
