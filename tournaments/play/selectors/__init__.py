"""Reads: what a given user may see, as querysets and match documents.

Anything a user may not see is simply absent from their querysets, so the API
answers 404 for another user's private bot exactly as for one that never existed.
Who sees which cards, logs and diagnostics of a match is decided in
``tournaments.play.visibility``, which pages, the API and downloads all follow.

Results (a match's status, outcome, seats' ranks and scores) are written by a database
trigger when the final event is appended, not by Python: see models.Match.
"""

from __future__ import annotations

import hmac
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg
from django.db import connection, connections, router
from django.db.models import (
    Count,
    Exists,
    F,
    Max,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Sum,
    prefetch_related_objects,
)
from django.db.models.functions import Coalesce

from games.engine.registry import get
from games.engine.types import JSON
from replays import store
from replays.document import match_document
from tournaments.play import keyset, lifecycle, read_cache, tokens, visibility
from tournaments.play.models import (
    ApiToken,
    Bot,
    BotLog,
    BotVersion,
    Fault,
    FaultCount,
    Match,
    Seat,
    WebhookDelivery,
)
from tournaments.play.selectors import sights

# Who may act for a seat, read with the rest of who-sees-what (sights.py).
from tournaments.play.selectors.sights import may_act as may_act
from tournaments.play.selectors.sights import person_seats as person_seats
from tournaments.play.visibility import is_staff, user_id


def bots_visible_to(user: Any) -> QuerySet[Bot]:
    """Everyone sees active public bots; owners also see their private and deactivated ones."""
    qs = Bot.objects.select_related("owner")
    if is_staff(user):
        return qs
    listed = Q(is_public=True, is_active=True)
    uid = user_id(user)
    return qs.filter(listed | Q(owner_id=uid)) if uid is not None else qs.filter(listed)


def bots_owned_by(user: Any) -> QuerySet[Bot]:
    """Bots ``user`` may change: their own (staff: all)."""
    qs = Bot.objects.select_related("owner")
    if is_staff(user):
        return qs
    uid = user_id(user)
    return qs.filter(owner_id=uid) if uid is not None else qs.none()


def bots_listed(user: Any, *, writable: bool = False, game: str | None = None) -> QuerySet[Bot]:
    """Bots newest first: those ``user`` may see, or (``writable``) may change; of one game."""
    qs = bots_owned_by(user) if writable else bots_visible_to(user)
    qs = qs.select_related("active_version")  # its number is in each bot's representation
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
    """A version's code: as private as its diagnostics (the bot's owner's and staff's)."""
    return visibility.may_read_bot_diagnostics(user, bot)


def seats_with_players() -> Prefetch[Any]:
    """A match's seats with their bot versions, bots, owners and people, in one query (a
    prefetch per relation was five)."""
    return Prefetch(
        "seats",
        queryset=Seat.objects.select_related("bot_version__bot__owner", "player")
        # Only what a seat is shown with (visibility.seat_as_seen): the version's upload and
        # the users' other columns made the query several times longer to build and read.
        .only(*_SEAT_SHOWN)
        .order_by("number"),
    )


_SEAT_SHOWN = (
    *(f.name for f in Seat._meta.concrete_fields),
    "bot_version__number",
    "bot_version__bot__name",
    "bot_version__bot__is_public",
    "bot_version__bot__owner__username",
    "player__username",
)


def matches_visible_to(user: Any) -> QuerySet[Match]:
    """Every match, except smoke matches (a version's validation run) of other users' bots."""
    return Match.objects.filter(_visible_q(user))


def _visible_q(user: Any, match: str = "") -> Q:
    """``matches_visible_to`` as a filter, on Match or (``match="match__"``) on a relation."""
    if is_staff(user):
        return Q()
    uid = user_id(user)
    if uid is None:
        return Q(**{f"{match}validation_of__isnull": True})
    return Q(**{f"{match}validation_of__isnull": True}) | Q(
        **{f"{match}validation_of__bot__owner_id": uid}
    )


def newest_smoke_matches_of(uid: int) -> dict[str, datetime]:
    """When the newest smoke match of ``uid``'s bots was made, per game (a game absent: none of
    that game): only its owner's lists show it (tournaments/site/token_lists.py). A smoke match
    is of its bot's game.

    Asked version by version: each of the account's versions' newest smoke match is one probe of
    match_smoke_newest, and the newest of those per game is the answer. Asked as one join ordered
    by creation time, Postgres walked match_newest through every match instead (the whole table
    for an account with none)."""
    newest = (
        Match.objects.filter(validation_of=OuterRef("pk"))
        .order_by("-created_at")
        .values("created_at")[:1]
    )
    rows = (
        BotVersion.objects.filter(bot__owner_id=uid)
        .values_list("bot__game")
        .annotate(newest=Max(Subquery(newest)))
        .order_by()
    )
    return {game: at for game, at in rows if at is not None}


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
        sights.with_deal_state(matches_visible_to(user))
        .select_related("created_by")
        .prefetch_related(seats_with_players())
        .order_by(*keyset.NEWEST_FIRST)
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
        # A private bot is not named to others, so filtering on it finds nothing for them (a
        # test Postgres makes once per query). The matches are read from the bot's seats
        # newest first (seat_bot_newest): the keys the list pages by are the seat's copies,
        # annotated in the same join as the filter (keyset.BY_SEAT).
        shown = Bot.objects.filter(visibility.bots_shown_q(user), pk=bot)
        qs = keyset.newest_first(
            qs.filter(Exists(shown), seats__bot_id=bot).annotate(
                listed_at=F("seats__match_created_at"), listed_id=F("seats__match_id")
            )
        )
    return qs


def with_seats(matches: list[Match]) -> None:
    """Each match's seats, prefetched as ``matches`` and ``match_detail`` read them (one query),
    for a match in hand (a challenge just made)."""
    prefetch_related_objects(matches, seats_with_players())


def find_match(match_id: uuid.UUID | str, user: Any = None) -> Match | None:
    """The match as ``match_detail`` reads it, or None if there is none ``user`` may see."""
    return match_detail(match_id, user).first()


def match_detail(match_id: uuid.UUID | str, user: Any = None) -> QuerySet[Match]:
    """The match (if ``user`` may see it) with what its serializer reads, prefetched."""
    return (
        sights.with_deal_state(matches_visible_to(user))
        .filter(pk=match_id)
        .select_related("created_by")
        .prefetch_related(seats_with_players())
    )


# What a match is


MATCH_KINDS = {
    "ladder": "a ladder's round",
    "season": "a season's fixture",
    "series": "an account's series or A/B test",
    "fork": "a fork of another match",
    "validation": "an upload's smoke match",
    "person": "a game with a person's seat",
    "challenge": "a challenge",
}
"""Each kind of match (``match_kind``), and what it means."""


def match_kind(match: Match) -> str:
    """What made the match, one of MATCH_KINDS: its competition if any, else a fork, an upload's
    smoke match, a game a person plays in, or a challenge. Reads the match's own columns and
    its prefetched seats (``matches``, ``match_detail``): no query of its own."""
    if match.ladder_id is not None:
        return "ladder"
    if match.season_id is not None:
        return "season"
    if match.series_id is not None:
        return "series"
    if match.forked_from_id is not None:
        return "fork"
    if match.validation_of_id is not None:
        return "validation"
    if any(seat.player_id is not None for seat in match.seats.all()):
        return "person"
    return "challenge"


# The site's pages


MATCH_STATUSES: list[str] = list(Match.Status.values)
"""Every status a match may have, in their order: the match list's status filter."""

LIVE_STATUSES = (Match.Status.QUEUED, Match.Status.RUNNING, Match.Status.WAITING)
"""Statuses of a match whose page follows new events."""


def is_live(match: Match) -> bool:
    """Whether more events may still come (queued, running or waiting for a person)."""
    return match.status in LIVE_STATUSES


def is_waiting(match: Match) -> bool:
    """Whether the match waits for a person's decision."""
    return bool(match.status == Match.Status.WAITING)


def is_finished(match: Match) -> bool:
    """Whether the match was played to its end (not aborted): its seats are ranked."""
    return bool(match.status == Match.Status.FINISHED)


def bot_choices(user: Any, *, limit: int = 200) -> list[tuple[int, str]]:
    """(key, name) of the first ``limit`` bots ``user`` may see, by name (the match list's bot
    filter)."""
    return list(bots_visible_to(user).order_by("name").values_list("pk", "name")[:limit])


def bot_versions(bot: Bot) -> QuerySet[BotVersion]:
    """The bot's versions, newest first (its page: the bot is one the caller may see)."""
    return bot.versions.order_by("-number")


def bot_seats(user: Any, bot: Bot) -> QuerySet[Seat]:
    """The bot's seats in matches ``user`` may see, newest match first, with their matches:
    read from the bot's seats' index (``seat_bot_newest``), whatever its history."""
    return (
        Seat.objects.filter(_visible_q(user, "match__"), bot_id=bot.pk)
        .select_related("match", "bot_version")
        .order_by("-match_created_at", "-match_id")
    )


def bot_verdicts(user: Any, bot: Bot) -> list[tuple[str, int]]:
    """How many faults of each verdict (non-ok verdicts) the bot received in matches ``user``
    may see, by verdict name: its running counts (FaultCount, kept by the database), a few rows
    whatever the number of its faults. Another user's smoke matches are hidden, and so are
    their verdicts (as ``bot_faults``)."""
    counts = FaultCount.objects.filter(bot_id=bot.pk, count__gt=0)
    if not visibility.may_read_bot_diagnostics(user, bot):
        counts = counts.filter(smoke=False)
    rows = counts.order_by().values_list("verdict").annotate(n=Sum("count"))
    return sorted((verdict, n) for verdict, n in rows)


def bot_faults(user: Any, bot: Bot, verdict: str | None = None) -> QuerySet[Fault]:
    """The bot's non-ok verdicts in matches ``user`` may see (of the one ``verdict``, if given),
    grouped by verdict, newest first in each group: read from the bot's index
    (``fault_bot_verdict``), whatever the history.

    ``bot`` is one ``user`` may see (``bots_visible_to``); what of each row they may read
    (its detail) is ``visibility.may_read_fault_detail``.
    """
    qs = (
        Fault.objects.filter(bot_id=bot.pk)
        .select_related("match", "bot_version")
        .order_by("verdict", "-id")
    )
    if not visibility.may_read_bot_diagnostics(user, bot):
        # Another user's smoke matches are hidden (matches_visible_to): so are their verdicts.
        qs = qs.filter(match__validation_of__isnull=True)
    return qs.filter(verdict=verdict) if verdict else qs


def bot_fault_counts(user: Any, bot: Bot) -> list[tuple[str, int]]:
    """How many faults of each verdict ``bot_faults`` lists, by verdict (from the same index)."""
    rows = bot_faults(user, bot).order_by().values_list("verdict").annotate(n=Count("id"))
    return sorted((verdict, n) for verdict, n in rows)


def webhook_deliveries(bot: Bot, *, limit: int = 20) -> QuerySet[WebhookDelivery]:
    """The bot's latest webhook calls' attempts, newest first (its owner's page only)."""
    return WebhookDelivery.objects.filter(bot_id=bot.pk).order_by("-id")[:limit]


def forks_of(match: Match) -> QuerySet[Match]:
    """The matches forked from ``match``, oldest first."""
    return Match.objects.filter(forked_from=match).order_by("created_at")


def versions_to_fork_with(user: Any, game: str, *, limit: int = 50) -> QuerySet[BotVersion]:
    """``user``'s ready versions of active bots of ``game``, which a fork may seat (at most
    ``limit``; none for an anonymous user)."""
    return BotVersion.objects.filter(
        bot__owner=user_id(user),
        bot__game=game,
        bot__is_active=True,
        status=BotVersion.Status.READY,
    ).select_related("bot")[:limit]


def public_versions_to_challenge(user: Any, game: str, *, limit: int = 100) -> list[BotVersion]:
    """Other users' public active bots of ``game``, each by its newest ready version (the one
    ladders seat), by bot name; a challenge page offers them (at most ``limit``)."""
    newest = BotVersion.objects.filter(
        bot=OuterRef("bot"), status=BotVersion.Status.READY
    ).order_by("-number")
    found = (
        BotVersion.objects.filter(
            bot__game=game,
            bot__is_public=True,
            bot__is_active=True,
            status=BotVersion.Status.READY,
            pk=Subquery(newest.values("pk")[:1]),
        )
        .exclude(bot__owner=user_id(user))
        .select_related("bot", "bot__owner")
        .order_by("bot__name", "bot__owner__username")
    )
    return list(found[:limit])


def logs_once_deal_over(logs: QuerySet[BotLog]) -> QuerySet[BotLog]:
    """``logs`` of matches whose deal is over: before, a line can quote the bot's hand, which
    the other matches of a duplicate deal are still dealing (staff's logs, the admin)."""
    return logs.filter(match__in=Match.objects.filter(sights.deal_over_q()))


END_SEARCH = 32
"""How many of a match's last events may follow its end's first reveal (the end, the result)."""


_LAST_STEP_SHOWN = "_last_step_shown"


def last_step_shown(match: Match) -> int:
    """The last stored step, or, while the match's deal plays on in another match, the step
    before its end revealed the deal's hidden cards: the state there is the one a running
    match shows (the end's observation shows every seat's hidden agenda), and a bot's log goes
    no further (its ``end()`` is told the outcome, whose detail it may print)."""
    known: int | None = getattr(match, _LAST_STEP_SHOWN, None)
    if known is not None:
        return known  # a request asks it for the state, the board and the logs: read once
    withheld = visibility.withheld_at_end(match)
    last = match.last_version
    if withheld and match.status == Match.Status.FINISHED:
        tail = store.read(match.id, from_version=max(1, match.last_version - END_SEARCH))
        ends = [e.version for e in tail if e.type in withheld]
        last = min(ends) - 1 if ends else match.last_version
    setattr(match, _LAST_STEP_SHOWN, last)
    return last


def logs_for(user: Any, match: Match) -> QuerySet[BotLog]:
    """Bot logs of the seats whose logs ``user`` may read (``visibility.log_seats``), up to
    the last step shown (``last_step_shown``)."""
    qs = BotLog.objects.filter(match=match, version__lte=last_step_shown(match))
    return qs.order_by("version", "seat", "id").filter(seat__in=visibility.log_seats(user, match))


# The match document, as one user may see it


EVENTS_PAGE_SIZE = 1000
"""Events per page by default: about 150 kB of JSON for Brexit, some 80 ms to serve."""
EVENTS_PAGE_MAX = 5000


class NoSuchView(LookupError):
    """The caller may not see the match from that seat (or the seat does not exist)."""


def seat_labels(match_id: uuid.UUID | str) -> list[str]:
    """The stored match's seats as its document names them, in seat order."""
    seats = Seat.objects.filter(match_id=match_id).select_related("bot_version__bot", "player")
    return [seat.label for seat in seats.order_by("number")]


def document_header(match: Match, user: Any = None) -> dict[str, Any]:
    """The document's ``format`` and ``match``; options and seed stay secret until the deal is
    over (``visibility.deal_over``).

    Seats are labelled as ``user`` may see them (a private bot's as "(private bot)")."""
    over = visibility.deal_over(match)
    return match_document(
        match_id=str(match.pk),
        game=match.game,
        options=match.options if over else None,
        seed=match.seed if over else None,
        seats=[visibility.seat_as_seen(user, seat).label for seat in match.seats.all()],
        status=match.status,
        outcome=visibility.outcome_as_seen(match),
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
    if seat is not None and seat not in {s.number for s in match.seats.all()}:
        raise NoSuchView(f"this match has no seat {seat}")
    view = None if seat is None else visibility.seat_view(seat)
    if view is not None and not visibility.may_see(user, match, view):
        raise NoSuchView(
            f"seat {seat}'s view is its owner's until the match (and its duplicate deal) is over"
        )
    # Once the deal is over every payload is shown, whichever seat was asked for.
    seen_by = visibility.sight(user, match, None if visibility.deal_over(match) else view)
    limit = max(1, min(limit, EVENTS_PAGE_MAX))
    events, more = _events_page(match, seen_by, after, limit)
    page = document_header(match, user)
    page["events"] = events
    mine = visibility.seats_of(user, match)
    page["view"] = {
        "seats": sorted(mine if seat is None else mine & {seat}),
        "game_over": visibility.is_over(match),
        "deal_over": visibility.deal_over(match),
    }
    return page, more


EVENTS_BLOCK = 100
"""Events per cached block: a page is cut from the blocks it spans, so pages that start
anywhere share what was cached for the others."""


def _events_page(
    match: Match, seen_by: visibility.Sight, after: int, limit: int
) -> tuple[list[dict[str, Any]], bool]:
    """Events ``after + 1`` to ``after + limit`` as ``seen_by`` sees them, and whether more follow."""
    # One more than the page (are there more?), and nothing past what is stored.
    last = min(after + limit + 1, match.last_version)
    if last <= after:
        return [], False
    blocks = range(after // EVENTS_BLOCK, (last - 1) // EVENTS_BLOCK + 1)
    events = [
        event
        for found in read_cache.remember_many(
            [
                (read_cache.events_key(match, seen_by, block), _block_reader(match, seen_by, block))
                for block in blocks
            ],
            # A block is fixed once it is full (its events are stored for good) or the match over.
            keep=lambda found: (
                len(found) == EVENTS_BLOCK or (bool(found) and visibility.is_over(match))
            ),
        )
        for event in found
        if after < event["version"] <= last
    ]
    return events[:limit], len(events) > limit


def _block_reader(
    match: Match, seen_by: visibility.Sight, block: int
) -> Callable[[], list[dict[str, Any]]]:
    """Reads versions ``block * EVENTS_BLOCK + 1`` to ``(block + 1) * EVENTS_BLOCK`` as
    ``seen_by`` sees them."""

    def read() -> list[dict[str, Any]]:
        rows = store.read(
            match.pk,
            from_version=block * EVENTS_BLOCK + 1,
            to_version=(block + 1) * EVENTS_BLOCK,
        )
        return [
            {"version": row.version, **visibility.event_as_seen(row.as_engine_event(), seen_by)}
            for row in rows
        ]

    return read


_MATCH_FIELDS = [
    "id",
    "game",
    "options",
    "seed",
    "status",
    "last_version",
    "waiting_for",
    "deadline",
    "human_move_seconds",
]
_SEAT_FIELDS = ["id", "match_id", "number", "bot_version_id", "builtin", "player_id"]
_MATCH_TO_PLAY = (
    f"SELECT {', '.join('m.' + f for f in _MATCH_FIELDS)}, {', '.join('s.' + f for f in _SEAT_FIELDS)}"  # noqa: S608 (constant column names; values are bound parameters)
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
    waiting = rows[0][6]
    match_values[6] = json.loads(waiting) if isinstance(waiting, str) else waiting
    match = Match.from_db("default", _MATCH_FIELDS, match_values)
    seats = []
    for row in rows:
        seat = Seat.from_db("default", _SEAT_FIELDS, row[split:])
        seat.match = match
        seats.append(seat)
    return match, seats


# An account's own things: its bots as "my bots" lists them, its named API tokens.

RECENT_SEATS = 20
"""A bot's "last errors" count its non-ok verdicts in this many of its newest matches."""


def bots_of(user: Any) -> QuerySet[Bot]:
    """``user``'s own bots (staff too: only their own), newest first, each with
    ``newest_ready`` (the number of its newest ready version), ``active_number`` (the version
    ladders play: the one chosen, else the newest ready) and ``versions_pending``."""
    uid = user_id(user)
    if uid is None:
        return Bot.objects.none()
    newest_ready = (
        BotVersion.objects.filter(bot=OuterRef("pk"), status=BotVersion.Status.READY)
        .order_by("-number")
        .values("number")[:1]
    )
    pending = BotVersion.objects.filter(bot=OuterRef("pk"), status=BotVersion.Status.PENDING)
    return (
        Bot.objects.filter(owner_id=uid)
        .select_related("active_version")
        .annotate(
            newest_ready=Subquery(newest_ready),
            active_number=Coalesce("active_version__number", Subquery(newest_ready)),
            versions_pending=Exists(pending),
        )
        .order_by("-created_at", "-id")
    )


def own_bot(user: Any, bot_id: int) -> Bot | None:
    """One of ``user``'s own bots (annotated as ``bots_of``), or None."""
    return bots_of(user).filter(pk=bot_id).first()


_RECENT_FAULTS = """
SELECT b.id, f.verdict, sum(f.n)::int
FROM unnest(%(bots)s::bigint[]) AS b(id)
CROSS JOIN LATERAL (
    SELECT s.match_id, s.number FROM tournaments_seat s
    WHERE s.bot_id = b.id
    ORDER BY s.match_created_at DESC, s.match_id DESC
    LIMIT %(recent)s
) AS s
CROSS JOIN LATERAL (
    SELECT f.verdict, count(*) AS n FROM tournaments_fault f
    WHERE f.match_id = s.match_id AND f.seat = s.number
    GROUP BY f.verdict
) AS f
GROUP BY 1, 2
"""
"""Each bot's newest seats from its own index (seat_bot_newest), and each seat's faults from
theirs (fault_per_decision: match, seat), looked up seat by seat (grouped in the lateral, which
Postgres cannot turn into a join that reads the whole fault table): one query for the page."""


def recent_errors_of(bots: list[int]) -> dict[int, dict[str, int]]:
    """The faults (non-ok verdicts) of each bot's seats in its ``RECENT_SEATS`` newest matches,
    by bot and verdict (the bots' owner's view: every match of theirs), in one query."""
    found: dict[int, dict[str, int]] = {pk: {} for pk in bots}
    if not bots:
        return found
    # Where the ORM would read a seat (a replica, when one serves this request).
    with connections[router.db_for_read(Seat)].cursor() as cur:
        cur.execute(_RECENT_FAULTS, {"bots": bots, "recent": RECENT_SEATS})
        for pk, verdict, count in sorted(cur.fetchall()):
            found[pk][verdict] = count
    return found


def recent_errors(bot: Bot) -> dict[str, int]:
    """``recent_errors_of`` one bot."""
    return recent_errors_of([bot.pk])[bot.pk]


def own_versions(bot: Bot) -> QuerySet[BotVersion]:
    """The bot's versions for its owner, newest first, each with ``smoke_match_id`` (its latest
    validation run) and its validation error."""
    latest_smoke = Match.objects.filter(validation_of=OuterRef("pk")).order_by("-created_at")
    return (
        BotVersion.objects.filter(bot=bot)
        .defer("upload")
        .annotate(smoke_match_id=Subquery(latest_smoke.values("id")[:1]))
        .order_by("-number")
    )


def tokens_of(user: Any) -> QuerySet[ApiToken]:
    """``user``'s named API tokens, newest first (their keys are not kept)."""
    uid = user_id(user)
    return ApiToken.objects.filter(user_id=uid) if uid is not None else ApiToken.objects.none()


def newest_source(bot: Bot) -> str | None:
    """The text of the bot's newest version if it is one ``.py`` file in UTF-8 (the editor
    starts from it), else None."""
    newest = BotVersion.objects.filter(bot=bot).order_by("-number").first()
    if newest is None or not newest.filename.endswith(".py"):
        return None
    try:
        return bytes(newest.upload).decode("utf-8")
    except UnicodeDecodeError:
        return None


def token_for_key(key: str) -> ApiToken | None:
    """The named token ``key`` is (its user with it), or None: not a named key, or no token's
    digest matches it. Whether its user may still use it is the caller's
    (``services.user_for_token``, which also notes the use)."""
    if not key.startswith(tokens.KEY_START):
        return None
    prefix, _, secret = key[len(tokens.KEY_START) :].partition("_")
    if not prefix or not secret:
        return None
    token = ApiToken.objects.select_related("user").filter(prefix=prefix).first()
    if token is None or not hmac.compare_digest(token.digest, tokens.digest(key)):
        return None
    return token


# --- a person's seats (tournaments/play/lifecycle/people.py) ----------------------------------


class NotFound(LookupError):
    """No such match for this user, or no seat of theirs to act for (answered 404)."""


def own_seats(user: Any, match_id: Any) -> list[int]:
    """``user``'s seats in the match (NotFound if they may not see it or play none of it).

    Who may act for a seat: ``person_seats``, ``may_act`` (sights.py).
    """
    match = matches_visible_to(user).filter(pk=match_id).first()
    if match is None:
        raise NotFound("no such match")
    seats = sights.person_seats(user, match)
    if not seats:
        raise NotFound("you have no seat to play in this match")
    return seats


@dataclass(frozen=True)
class Decision:
    """What one person's seat is asked now (GET /api/matches/{id}/actions/, the page)."""

    seat: int
    waiting: bool
    step: int | None
    deadline: Any
    status: str
    observation: JSON | None = None
    legal: JSON | None = None


def person_decisions(user: Any, match_id: Any) -> list[Decision]:
    """Each of ``user``'s seats: whether the match waits for it, and what it may do."""
    seats = own_seats(user, match_id)
    match = Match.objects.get(pk=match_id)
    waiting = set(match.waiting_for or ()) if match.status == Match.Status.WAITING else set()
    state = lifecycle.state_now(match)[0] if waiting & set(seats) else None
    rules = get(match.game).rules
    out = []
    for number in seats:
        asked = number in waiting and state is not None
        out.append(
            Decision(
                seat=number,
                waiting=asked,
                step=match.waiting_step if asked else None,
                deadline=match.deadline if asked else None,
                status=match.status,
                observation=rules.observe(state, number) if asked else None,
                legal=dict(rules.legal(state, number)) if asked else None,
            )
        )
    return out
