"""Who may see which view of a match: the one place the replay rules live.

Before a match is finished everyone sees the spectator's (public) view and a
bot's owner also sees their own seat's view; nobody, staff included, sees
another seat's hidden cards. Once it is finished every view is open. A bot's
logs (stderr, the exact ``act`` messages it received) stay with its owner and
staff. Pages, API endpoints and downloads all ask this module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from games.engine.events import view as event_view
from games.engine.platform_events import BOT_VERDICT
from games.engine.types import Event
from tournaments.models import Match, Seat

PUBLIC = "public"
ALL = "all"
_SEAT = re.compile(r"^seat(\d{1,2})$")


@dataclass(frozen=True)
class View:
    """public (a spectator), seatK (what seat K's bot was shown), or all (every card face up)."""

    name: str
    seat: int | None = None

    @property
    def everything(self) -> bool:
        return self.name == ALL


class BadView(ValueError):
    pass


def parse_view(text: str | None, seats: int) -> View:
    """The view named ``text`` ("public", "all", "seat0"...); BadView if there is no such view."""
    text = (text or PUBLIC).strip()
    if text in (PUBLIC, ALL):
        return View(text)
    found = _SEAT.match(text)
    if found and int(found.group(1)) < seats:
        seat = int(found.group(1))
        return View(f"seat{seat}", seat)
    names = ", ".join([PUBLIC, ALL, *(f"seat{k}" for k in range(seats))])
    raise BadView(f"no view {text!r}; this match has: {names}")


def is_over(match: Match) -> bool:
    return match.status == Match.Status.FINISHED


def _user_id(user: Any) -> int | None:
    return user.pk if user is not None and user.is_authenticated else None


def _is_staff(user: Any) -> bool:
    return bool(user is not None and user.is_authenticated and user.is_staff)


def seats_of(user: Any, match: Match) -> set[int]:
    """Seat numbers of ``match`` played by versions of ``user``'s bots."""
    uid = _user_id(user)
    if uid is None:
        return set()
    return set(
        Seat.objects.filter(match=match, bot_version__bot__owner_id=uid).values_list(
            "number", flat=True
        )
    )


def may_see(user: Any, match: Match, view: View) -> bool:
    """Whether ``user`` may look at ``match`` through ``view`` now."""
    if view.name == PUBLIC or is_over(match):
        return True
    if view.seat is not None:
        return view.seat in seats_of(user, match)
    return False  # every card face up only once the match is over, staff included


def views_open_to(user: Any, match: Match, seats: int) -> list[View]:
    """The views ``user`` may pick, in the order the viewer lists them."""
    every = [View(PUBLIC), *(View(f"seat{k}", k) for k in range(seats)), View(ALL)]
    if is_over(match):
        return every
    mine = seats_of(user, match)
    return [v for v in every if v.name == PUBLIC or v.seat in mine]


def may_read_logs(user: Any, match: Match, seat: int) -> bool:
    """A seat's stderr and act messages: its bot's owner, and staff once the match is over.

    Staff wait for the end because an act message holds the seat's hidden cards.
    """
    return seat in seats_of(user, match) or (_is_staff(user) and is_over(match))


def log_seats(user: Any, match: Match, seats: int) -> frozenset[int]:
    """The seats whose logs (stderr, act messages, verdict details) ``user`` may read."""
    return frozenset(k for k in range(seats) if may_read_logs(user, match, k))


def event_as_seen(ev: Event, view: View | None, logs: frozenset[int] = frozenset()) -> Event:
    """An event through ``view`` (None: as stored), a verdict's details only for ``logs`` seats.

    A verdict's details (a traceback, what the bot printed) are its bot's log: they
    stay with the owner even once every card is face up.
    """
    if ev["type"] == BOT_VERDICT and ev["actor"] not in logs:
        ev = {**ev, "payload": ev["redacted"] or {}}
    if view is None or view.everything:
        return ev
    return event_view(ev, view.seat)
