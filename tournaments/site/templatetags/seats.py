"""Template filters and tags for the site's pages: a seat as the visitor may see it (visibility
rules), and a match table's row."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import template
from django.template.defaultfilters import date
from django.urls import reverse
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.timezone import localtime

from tournaments.play import selectors, visibility

if TYPE_CHECKING:
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


KIND_LABELS = {"person": "person's game", "validation": "smoke test"}
"""How a kind is named in a match table's tag, where it is not its own name (the page's text,
as the template wrote it)."""


@register.simple_tag(takes_context=True)
def match_row(context: template.Context, match: Match) -> SafeString:
    """``{% match_row m %}``: one row of a match table (home, the match list, a ladder's page),
    its seats as the visitor may see them, the bytes the included template it replaces wrote
    (tests/viewer/test_match_row.py). Built here: 25 rows of a dozen lookups, filters and URL
    tags each were a third of the match list's CPU. Every value shown is escaped (``_e``)."""
    user = context.get("user", "")
    k = selectors.match_kind(match)
    seats = list(match.seats.all())
    cells = []
    for n, seat in enumerate(seats):
        shown = visibility.seat_as_seen(user, seat)
        label = _e(shown.label)
        if shown.bot_id:
            cell = f'<a href="{_e(reverse("site-bot", args=[shown.bot_id]))}">{label}</a>'
        else:
            cell = label
        if seat.rank:
            cell += f' <span class="rank">#{_e(seat.rank)}</span>'
        if n < len(seats) - 1:
            cell += " · "
        cells.append(cell)
    created = localtime(match.created_at)  # as the template language shows a datetime
    status = _e(match.status)
    return mark_safe(  # noqa: S308 (every value in it escaped)
        f'<tr>\n  <td><a href="{_e(reverse("site-match", args=[match.pk]))}">'
        f"{_e(match.get_game_display())}</a>"
        f' <span class="tag kind kind-{_e(k)}">{KIND_LABELS.get(k) or _e(k)}</span></td>\n'
        f'  <td class="seats">{"".join(cells)}</td>\n'
        f'  <td><span class="status status-{status}">{status}</span></td>\n'
        f'  <td class="num">{_e(match.last_version)}</td>\n'
        f'  <td><time datetime="{_e(date(created, "c"))}">{_e(date(created, "Y-m-d H:i"))}'
        "</time></td>\n</tr>\n"
    )


def _e(value: Any) -> str:
    """``value`` as the template language shows it (autoescape: a safe string as it is)."""
    return str(conditional_escape(value))
