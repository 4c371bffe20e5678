"""Who sees what of a match: the one place these rules live.

Every page, API endpoint and download asks this module; none decides on its own.

* Hidden cards (hands, decks, face-down cards, and the seed and options that would
  deal them): before a match is over everyone sees the public view and a bot's owner
  also their own seat's view. Nobody sees another seat's hidden cards, staff
  included. Once it is over every view is open.
* A bot's logs (verdict details such as tracebacks, its stderr, the exact ``act``
  messages it was sent): its owner's, always; staff's too once the match is over
  (before, a line can quote the bot's hand). Everyone else sees a verdict's kind,
  its step and the strikes.
* A private bot: to anyone but its owner and staff, a private bot's seat, rating or
  standing shows as "(private bot)", with no bot id, version id, owner or link, and
  filtering on it finds nothing. It still plays the ladders it is in, anonymously: its
  ratings and rating history are listed under an opaque player key ("p:<hmac>", stable,
  so ``?player=`` with it finds its history) instead of "v:<version id>", whose id would
  be the same in every list and so track it (``player_as_seen``). A challenge's
  ``created_by`` stays shown next to a private seat: the challenger made it in public.
* An abort's reason: the owners of the match's bots, whoever created it, and staff.
  It can quote an exception from inside the platform.
* A person's seat (``Seat.player``): that person sees it as a bot's owner sees their
  bot's seat (its hidden cards, its verdicts), and only they may act for it
  (``selectors.sights.may_act``); everyone else, staff included, sees the public view while it runs.

"Over" is finished *or aborted*: an aborted match is never resumed (the runner
skips it) and has no result, but nothing hidden in it can be played on any more,
so its cards open as a finished match's do, and a bot's owner can see what its
bot faced when the platform stopped it.

A duplicate deal (``Match.deal``: a ladder table's rotations, a season table's games)
is one seed played by several matches, which all deal the same cards. What one of them
dealt opens only when the deal is over (``deal_over``): every match of the set is over
and none is still to be played. Until then a match that is over keeps its seed, options
and other seats' hidden cards closed as if it were running, and staff wait for its logs
(a log line can quote the hand another match of the set is still playing); it cannot be
forked either (a fork copies the seed and the events).

Which matches a user may see at all (another user's smoke matches are hidden) is
``selectors.matches_visible_to``, a queryset over this module's ``is_staff`` and
``user_id``. Who may act for a seat (``may_act``, ``person_seats``) and the rows these rules
need (a deal's state, a match's seats) are read by play's selectors
(tournaments/play/selectors/sights.py): this module writes no query of its own (the seats
it walks are those its caller's selector prefetched, else Django loads them).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q
from django.utils.crypto import salted_hmac

from games.engine.events import can_see, redacted
from games.engine.platform_events import BOT_VERDICT, MATCH_ABORTED, MATCH_FINISHED
from games.engine.registry import GAMES
from games.engine.types import Event, Outcome
from tournaments.play.models import Bot, BotVersion, Match, Seat

PUBLIC = "public"
ALL = "all"
_SEAT = re.compile(r"seat([0-9]{1,2})\Z")
"""A seat's view: ASCII digits alone (``\\d`` read an Arabic-Indic one as seat 1), matched whole."""


def is_staff(user: Any) -> bool:
    return bool(user is not None and user.is_authenticated and user.is_staff)


def user_id(user: Any) -> int | None:
    return user.pk if user is not None and user.is_authenticated else None


OVER = (Match.Status.FINISHED, Match.Status.ABORTED)
"""The statuses of a match that is over: nothing more will be played, so every card may open."""


def is_over(match: Match) -> bool:
    return match.status in OVER


# --- duplicate deals: one seed, several matches ------------------------------------------------

DEAL_PLAYING = "deal_playing"
"""The attribute ``selectors.sights.with_deal_state`` annotates: whether the match's deal still
plays on (what else keeps a deal playing is ``selectors.sights.DEAL_PLAYS_ON``)."""


@dataclass
class Reads:
    """The two reads these rules need for a match not read through play's selectors (a match in
    hand: the admin's, a service's). They are play's selectors (``selectors.sights``), which
    import these rules; ``tournaments.apps`` sets them when the app is ready, so that the rules
    import no selector."""

    deal_playing: Callable[[Match], bool] | None = None
    seats_played_by: Callable[[int, Match], frozenset[int]] | None = None


READS = Reads()


def _not_ready(name: str) -> RuntimeError:
    return RuntimeError(f"visibility.READS.{name} is not set: the tournaments app is not ready")


HIDDEN_UNTIL_OVER = "(hidden until the match and its duplicate deal are over)"
"""What staff's admin pages show in place of a seed, options or time used before then."""


def deal_over(match: Match) -> bool:
    """Whether everything ``match`` dealt may open: it is over, and so is every match of its
    duplicate deal, with none still to be played. A match outside any set: it is over.

    Once true it stays true (no match of a set that is over is played again), so a value
    computed once the deal is over may be kept for good.
    """
    if not is_over(match):
        return False
    if match.deal is None:
        return True
    playing = getattr(match, DEAL_PLAYING, None)
    if playing is None:
        # Not read with its deal's state (a match in hand: the admin's, a service's): read it
        # once, by play's selectors.
        if READS.deal_playing is None:
            raise _not_ready("deal_playing")
        playing = READS.deal_playing(match)
        setattr(match, DEAL_PLAYING, playing)  # asked several times a request: read once
    return not playing


def people_in(match: Match) -> set[int]:
    """The accounts a match concerns (its creator, its people, its bots' owners): who may be
    shown more of it than a stranger. Its seats and their bots prefetched, it costs no query."""
    people: set[int] = set()
    if match.created_by_id is not None:
        people.add(match.created_by_id)
    for seat in match.seats.all():
        if seat.player_id is not None:
            people.add(seat.player_id)
        if seat.bot_version is not None:
            people.add(seat.bot_version.bot.owner_id)
    return people


def seats_of(user: Any, match: Match) -> frozenset[int]:
    """Seat numbers of ``match`` played by versions of ``user``'s bots, or by ``user``."""
    uid = user_id(user)
    if uid is None:
        return frozenset()
    if "seats" in getattr(match, "_prefetched_objects_cache", {}):
        # Read with its seats and their bots (selectors.match_detail): a request asks this
        # several times, and the answer is already in memory.
        return frozenset(
            seat.number
            for seat in match.seats.all()
            if seat.player_id == uid
            or (seat.bot_version is not None and seat.bot_version.bot.owner_id == uid)
        )
    if READS.seats_played_by is None:
        raise _not_ready("seats_played_by")
    return READS.seats_played_by(uid, match)


def _seat_numbers(match: Match) -> frozenset[int]:
    return frozenset(seat.number for seat in match.seats.all())


# --- views: which cards a caller may look through --------------------------------------------


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
    found = _SEAT.fullmatch(text)
    if found and int(found.group(1)) < seats:
        seat = int(found.group(1))
        return View(f"seat{seat}", seat)
    names = ", ".join([PUBLIC, ALL, *(f"seat{k}" for k in range(seats))])
    raise BadView(f"no view {text!r}; this match has: {names}")


def seat_view(seat: int) -> View:
    return View(f"seat{seat}", seat)


def may_see(user: Any, match: Match, view: View) -> bool:
    """Whether ``user`` may look at ``match`` through ``view`` now."""
    if view.name == PUBLIC or deal_over(match):
        return True
    if view.seat is not None:
        return view.seat in seats_of(user, match)
    return False  # every card face up only once the deal is over, staff included


def views_open_to(user: Any, match: Match, seats: int) -> list[View]:
    """The views ``user`` may pick, in the order the viewer lists them."""
    every = [View(PUBLIC), *(seat_view(k) for k in range(seats)), View(ALL)]
    return [v for v in every if may_see(user, match, v)]


# --- logs and diagnostics ---------------------------------------------------------------------


def may_read_logs(user: Any, match: Match, seat: int) -> bool:
    """A seat's verdict details, stderr, act messages and time used: its bot's owner; staff once
    the deal is over.

    Staff wait for the end because an act message or a stderr line can hold the seat's
    hidden cards, which the other matches of a duplicate deal are still dealing.
    """
    return seat in log_seats(user, match)


def log_seats(user: Any, match: Match) -> frozenset[int]:
    """The seats whose logs (stderr, act messages, verdict details, time used) ``user`` may read."""
    if is_staff(user) and deal_over(match):
        return _seat_numbers(match)
    return seats_of(user, match)


def may_read_error(user: Any, match: Match) -> bool:
    """An abort's reason: the owners of the match's bots, whoever created it, and staff.

    Everyone else sees that the match was aborted.
    """
    uid = user_id(user)
    if is_staff(user):
        return True
    if uid is None:
        return False
    return match.created_by_id == uid or bool(seats_of(user, match))


def may_read_bot_diagnostics(user: Any, bot: Bot) -> bool:
    """A version's validation error (a traceback) and its smoke match: the bot's owner's and staff's."""
    uid = user_id(user)
    return is_staff(user) or (uid is not None and bot.owner_id == uid)


def may_read_fault_detail(user: Any, bot: Bot, match: Match) -> bool:
    """A fault's detail (tournaments.play.faults) is its verdict's, so its bot's log: the
    bot's owner's, staff's once the deal is over (``may_read_logs`` of the bot's seat)."""
    uid = user_id(user)
    if uid is not None and bot.owner_id == uid:
        return True
    return is_staff(user) and deal_over(match)


# --- private bots ------------------------------------------------------------------------------

PRIVATE_BOT = "(private bot)"
"""What everyone but its owner and staff sees in place of a private bot's name."""


def shows_bot(user: Any, bot: Bot) -> bool:
    """Whether ``user`` may see who ``bot`` is (its name, id, owner): public, theirs, or staff."""
    uid = user_id(user)
    return bot.is_public or is_staff(user) or (uid is not None and bot.owner_id == uid)


def bots_shown_q(user: Any) -> Q:
    """``shows_bot`` as a filter on Bot: the bots whose identity ``user`` may see."""
    if is_staff(user):
        return Q()
    uid = user_id(user)
    return Q(is_public=True) | Q(owner_id=uid) if uid is not None else Q(is_public=True)


@dataclass(frozen=True)
class SeatShown:
    """A seat as one caller may see it: a private bot's has its label only, no id or owner."""

    label: str
    bot_version_id: int | None
    bot_id: int | None
    owner: str | None


def seat_as_seen(user: Any, seat: Seat) -> SeatShown:
    """``seat``'s bot as ``user`` may see it (see ``shows_bot``)."""
    version = seat.bot_version
    if seat.player is not None:
        return SeatShown(seat.label, None, None, seat.player.get_username())
    if version is None:
        return SeatShown(f"builtin:{seat.builtin}", None, None, None)
    if not shows_bot(user, version.bot):
        return SeatShown(PRIVATE_BOT, None, None, None)
    return SeatShown(str(version), version.pk, version.bot_id, version.bot.owner.get_username())


def player_name(user: Any, version: BotVersion | None, builtin: str = "") -> str:
    """How a player is shown to ``user``: "bot vN", "builtin:<name>", or the private label."""
    if version is None:
        return f"builtin:{builtin}"
    if not shows_bot(user, version.bot):
        return PRIVATE_BOT
    return f"{version.bot.name} v{version.number}"


# --- rated players: a private bot plays anonymously ---------------------------------------------

OPAQUE_PLAYER = "p:"
"""The prefix of a private bot's player key as shown to those it is hidden from."""


def opaque_player(player: str) -> str:
    """A stand-in for a private bot's player key ("v:<version id>"): the same on every list and
    for every caller (so its history can be asked for), naming no version; an HMAC keyed with
    SECRET_KEY, so nobody can compute it from a version id to check a guess."""
    digest = salted_hmac("tournaments.play.visibility.opaque_player", player).hexdigest()
    return OPAQUE_PLAYER + digest[:24]


def hides_player(user: Any, version: BotVersion | None) -> bool:
    """Whether a rated player (a bot version, or None for a built-in) is anonymous to ``user``."""
    return version is not None and not shows_bot(user, version.bot)


def player_as_seen(user: Any, player: str, version: BotVersion | None) -> str:
    """A rated player's key as ``user`` may see it: its own, or opaque for a private bot."""
    return opaque_player(player) if hides_player(user, version) else player


def version_id_as_seen(user: Any, version: BotVersion | None) -> int | None:
    """A rated player's bot version id, or None (a built-in, or a private bot)."""
    return None if version is None or hides_player(user, version) else version.pk


def player_asked(user: Any, asked: str, private: Collection[tuple[str, BotVersion]]) -> str | None:
    """The stored player key that ``?player=asked`` means for ``user``, None if it finds nothing.

    ``private``: the (key, version) of the private bots among the players asked about. An opaque
    key finds the private bot it stands for (whoever asks: its owner may use it too); a private
    bot's own "v:<id>" finds nothing for those it is hidden from, as a missing id would.
    """
    if asked.startswith(OPAQUE_PLAYER):
        found = [key for key, _ in private if opaque_player(key) == asked]
        return found[0] if found else None
    if any(key == asked and hides_player(user, version) for key, version in private):
        return None
    return asked


# --- events as one caller sees them -----------------------------------------------------------


@dataclass(frozen=True)
class Sight:
    """What one caller sees of one match's events."""

    cards: frozenset[int] | None
    """The seats whose hidden cards are shown; None: every card (the deal is over)."""
    logs: frozenset[int]
    """The seats whose verdict details are shown."""
    reads_error: bool
    """Whether the abort's reason is shown."""
    seed: bool
    """Whether the seed is shown (in ``match_finished``): once the deal is over."""
    withheld: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Event type -> payload keys withheld: the end's reveals while the deal plays on."""


def withheld_at_end(match: Match) -> Mapping[str, frozenset[str]]:
    """What the end of ``match`` reveals of its deal's hidden cards, while that deal plays on
    in another match (its game's ``end_reveals``, the outcome's ``detail``); nothing once the
    deal is over, or for a match that is not over (its end is not stored yet)."""
    if deal_over(match):
        return {}
    return {**GAMES[match.game].rules.end_reveals, MATCH_FINISHED: frozenset({"seed"})}


def outcome_as_seen(match: Match) -> Outcome | None:
    """The stored outcome, without its ``detail`` (the end's reveals) until the deal is over:
    a Brexit outcome lists every seat's hidden agenda, which the deal's other matches share."""
    outcome: Outcome | None = match.outcome
    if outcome is None or deal_over(match):
        return outcome
    shown: Outcome = {"scores": outcome["scores"], "ranks": outcome["ranks"]}
    return shown


def sight(user: Any, match: Match, view: View | None = None) -> Sight:
    """What ``user`` sees of the events through ``view`` (check ``may_see`` first).

    ``view`` None: through their own seats before the end, every card once the deal is over.
    """
    open_ = deal_over(match)
    if view is None:
        cards: frozenset[int] | None = None if open_ else seats_of(user, match)
    elif view.everything:
        cards = None
    else:
        cards = frozenset() if view.seat is None else frozenset({view.seat})
    return Sight(
        cards=cards,
        logs=log_seats(user, match),
        reads_error=may_read_error(user, match),
        seed=open_,
        withheld={} if open_ else withheld_at_end(match),
    )


def _sees_any(ev: Event, seats: Collection[int]) -> bool:
    return can_see(ev, None) or any(can_see(ev, s) for s in seats)


def event_as_seen(ev: Event, seen_by: Sight) -> Event:
    """The event whole, or its redacted form, as ``seen_by`` may see it.

    A verdict's details (a traceback, what the bot printed) are its bot's log: they
    stay with the owner even once every card is face up.
    """
    if ev["type"] == BOT_VERDICT:
        full = ev["actor"] in seen_by.logs
    elif ev["type"] == MATCH_ABORTED:
        full = seen_by.reads_error
    elif ev["type"] == MATCH_FINISHED and not seen_by.seed:
        # A public event, but its seed deals the cards the deal's other matches still play,
        # and its outcome's detail shows what the end revealed of them.
        payload = {k: v for k, v in ev["payload"].items() if k != "seed"}
        if isinstance(payload.get("outcome"), dict):
            payload["outcome"] = {k: v for k, v in payload["outcome"].items() if k != "detail"}
        return {**ev, "payload": payload}
    elif ev["type"] in seen_by.withheld:
        # The game's own end reveals hidden cards publicly: not while its deal plays on.
        keys = seen_by.withheld[ev["type"]]
        return {**ev, "payload": {k: v for k, v in ev["payload"].items() if k not in keys}}
    elif seen_by.cards is None:
        full = True
    else:
        full = _sees_any(ev, seen_by.cards)
    return ev if full else redacted(ev)
