"""Template filters for the site's pages: a seat as the visitor may see it (visibility rules)."""

from __future__ import annotations

from typing import Any

from django import template

from tournaments.play import selectors, visibility
from tournaments.play.models import Match, Seat

register = template.Library()


@register.filter
def seen_by(seat: Seat, user: Any) -> visibility.SeatShown:
    """``{% with shown=seat|seen_by:user %}``: its label, and its bot's id only if not private."""
    return visibility.seat_as_seen(user, seat)


@register.filter
def kind(match: Match) -> str:
    """``{{ m|kind }}``: what the match is (a ladder's round, a season's, a challenge...)."""
    return selectors.match_kind(match)
