"""Reads: what a given user may see. Views filter through these so visibility rules live in one place.

Anything a user may not see is simply absent from their querysets, so the API
answers 404 for another user's private bot exactly as for one that never existed.

Results (a match's status, outcome, seats' ranks and scores) are written by a database
trigger when the final event is appended, not by Python: see models.Match.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import psycopg
from django.db import connection
from django.db.models import Q, QuerySet

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


def versions_visible_to(user: Any) -> QuerySet[BotVersion]:
    """Versions of bots the user may see; their metadata only, the source is owner-only."""
    return BotVersion.objects.filter(bot__in=bots_visible_to(user)).select_related("bot")


def can_read_source(user: Any, bot: Bot) -> bool:
    return _is_staff(user) or (_user_id(user) is not None and bot.owner_id == _user_id(user))


def matches(
    *,
    game: str | None = None,
    bot: int | None = None,
    status: str | None = None,
    season: int | None = None,
    ladder: int | None = None,
) -> QuerySet[Match]:
    """Matches, newest first, filtered; results are public, so there is no per-user filter."""
    qs = Match.objects.all()
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


def match_detail(match_id: uuid.UUID) -> QuerySet[Match]:
    return Match.objects.filter(pk=match_id).prefetch_related("seats__bot_version__bot__owner")


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


def logs_for(user: Any, match: Match) -> QuerySet[BotLog]:
    """Bot logs of the seats the user owns (staff: every seat)."""
    qs = BotLog.objects.filter(match=match)
    if _is_staff(user):
        return qs
    return qs.filter(seat__in=seats_owned_by(user, match))


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
