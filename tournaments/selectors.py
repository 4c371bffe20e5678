"""Reads: what a given user may see. Views filter through these so visibility rules live in one place.

Anything a user may not see is simply absent from their querysets, so the API
answers 404 for another user's private bot exactly as for one that never existed.
"""

from __future__ import annotations

import uuid
from typing import Any

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
