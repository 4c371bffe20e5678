"""Competition's reads: ladders, seasons and their fixtures, for the API, the pages and play."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db.models import CharField, Count, Exists, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Cast, Coalesce, Concat

from config import queues
from games.engine.builtin import builtin_names
from tournaments.competition.models import Fixture, Ladder, LadderRound, Season, Series
from tournaments.play import selectors as play_selectors
from tournaments.play import visibility
from tournaments.play.models import BotVersion, Match
from tournaments.rating import keys
from tournaments.rating.models import Rating

SEASON_OVER = (Season.State.FINISHED, Season.State.CANCELLED)
"""A season that plays no more fixtures: one not played by then never will be."""


def fixture_to_play(deal: Any) -> Q:
    """Whether a fixture of the duplicate deal ``deal`` (a key, or ``OuterRef("deal")``) may still
    be played: not started yet, or void while its season runs (staff may re-run it, on the same
    seed). Play's visibility asks it (``tournaments.play.visibility.DEAL_PLAYS_ON``)."""
    to_play = (
        Fixture.objects.filter(deal=deal)
        .exclude(season__state__in=SEASON_OVER)
        .filter(Q(match__isnull=True) | Q(match__status=Match.Status.ABORTED))
    )
    return Q(Exists(to_play))


# --- ladders ----------------------------------------------------------------------------------


def ladders() -> QuerySet[Ladder]:
    return Ladder.objects.all()


def ladders_listed(**filters: Any) -> QuerySet[Ladder]:
    """The ladders matching ``filters`` (game, seats), each with its count of rated players
    (``rated``), per game and seat count."""
    rated = (
        Rating.objects.filter(pool=Concat(Value("ladder:"), Cast(OuterRef("pk"), CharField())))
        .values("pool")
        .annotate(n=Count("id"))
        .values("n")
    )
    return (
        Ladder.objects.filter(**filters)
        .annotate(rated=Coalesce(Subquery(rated), 0))
        .order_by("game", "seats", "id")
    )


def ladders_by_game() -> QuerySet[Ladder]:
    """Every ladder, by game then name (the home page's tops)."""
    return Ladder.objects.order_by("game", "name")


def ladders_by_name() -> QuerySet[Ladder]:
    """Every ladder, by name (the match list's ladder filter)."""
    return Ladder.objects.order_by("name")


# --- seasons ----------------------------------------------------------------------------------


def seasons() -> QuerySet[Season]:
    return Season.objects.all()


def seasons_by_name() -> QuerySet[Season]:
    """Every season, by name (the match list's season filter)."""
    return Season.objects.order_by("name")


def running_seasons() -> QuerySet[Season]:
    """The seasons being played, newest first."""
    return Season.objects.filter(state=Season.State.RUNNING).order_by("-created_at")


def seasons_with_entrants() -> QuerySet[Season]:
    return Season.objects.prefetch_related("entrants__bot_version__bot")


def seasons_listed(**filters: Any) -> QuerySet[Season]:
    """The seasons matching ``filters`` (game, state), newest first, each with its count of
    fixtures (``scheduled``) and of finished ones (``finished``)."""
    finished = Q(fixtures__match__status=Match.Status.FINISHED)
    return (
        Season.objects.filter(**filters)
        .prefetch_related("entrants__bot_version__bot")
        .annotate(
            scheduled=Count("fixtures", distinct=True),
            finished=Count("fixtures", filter=finished, distinct=True),
        )
        .order_by("-created_at", "id")
    )


SEASON_GROUPS = {
    "scheduled": (Season.State.DRAFT, Season.State.OPEN),
    "running": (Season.State.RUNNING, Season.State.PAUSED),
    "finished": (Season.State.FINISHED, Season.State.CANCELLED),
}
"""The seasons page's sections: to come, being played (or paused), over."""


def seasons_grouped() -> dict[str, list[Season]]:
    """Every season by SEASON_GROUPS section, newest first, each with ``played`` and
    ``planned`` (``planned_matches``), in one query."""
    qs = Season.objects.annotate(
        scheduled=Count("fixtures", distinct=True),
        finished=Count(
            "fixtures", filter=Q(fixtures__match__status=Match.Status.FINISHED), distinct=True
        ),
        first_round=Count("fixtures", filter=Q(fixtures__round=1), distinct=True),
    ).order_by("-created_at", "id")
    groups: dict[str, list[Season]] = {name: [] for name in SEASON_GROUPS}
    section = {str(state): name for name, states in SEASON_GROUPS.items() for state in states}
    for season in qs:
        season.played = season.finished  # type: ignore[attr-defined]  # shown with the row
        season.planned = planned_matches(season)  # type: ignore[attr-defined]
        groups[section[str(season.state)]].append(season)
    return groups


def planned_matches(season: Season) -> int:
    """The matches the season will play: its fixtures, and for a Swiss season still drawing
    its rounds (each drawn after the last), its first round's as many times as it has rounds.
    Reads ``scheduled`` and ``first_round`` if annotated (``seasons_grouped``)."""
    scheduled = getattr(season, "scheduled", None)
    if scheduled is None:
        scheduled = season.fixtures.count()
    if season.format != Season.Format.SWISS or season.state in SEASON_OVER:
        return int(scheduled)
    first = getattr(season, "first_round", None)
    if first is None:
        first = season.fixtures.filter(round=1).count()
    return max(int(scheduled), int(first) * season.rounds)


def season_progress(season: Season) -> tuple[int, int]:
    """(matches finished, matches planned)."""
    played = season.fixtures.filter(match__status=Match.Status.FINISHED).count()
    return played, planned_matches(season)


def last_ladder_round(ladder: Ladder) -> LadderRound | None:
    return ladder.rounds.order_by("-slot").first()


def next_ladder_round(ladder: Ladder, now: datetime) -> datetime | None:
    """When the ladder's next round is due: the next run of the enabled periodic tasks that
    play the rounds (django-celery-beat's rows, staff's to change), None if the ladder is
    inactive or no task runs the rounds."""
    from django_celery_beat.models import PeriodicTask

    if not ladder.is_active:
        return None
    found: list[datetime] = []
    for task in PeriodicTask.objects.filter(task=queues.RUN_LADDERS, enabled=True).select_related(
        "interval", "crontab"
    ):
        schedule = task.schedule
        if schedule is None:
            continue
        last = task.last_run_at or now
        if task.interval is not None:
            every = timedelta(seconds=task.interval.schedule.run_every.total_seconds())
            due = last + every
            if due < now:  # beat is behind (or stopped): due now
                due = now
        else:
            due = now + max(schedule.remaining_estimate(last), timedelta(0))
        found.append(due)
    return min(found) if found else None


def with_deal_opened(fixtures: QuerySet[Fixture]) -> QuerySet[Fixture]:
    """``fixtures`` with their matches, each marked ``opened`` if its duplicate deal is over
    (its seed may be shown), in the list's own query (the admin lists hundreds)."""
    opened = Match.objects.filter(pk=OuterRef("match_id")).filter(visibility.deal_over_q())
    return fixtures.select_related("match").annotate(opened=Exists(opened))


def schedule(season: Season) -> QuerySet[Fixture]:
    """A season's every game in play order, its match once started."""
    return (
        Fixture.objects.filter(season=season)
        .select_related("match")
        .order_by("round", "table", "game_number")
    )


# --- series -----------------------------------------------------------------------------------


def series_visible_to(user: Any) -> QuerySet[Series]:
    """A series is its owner's, and staff's; nobody else sees it (its matches follow the
    matches' own rules)."""
    if user is None or not user.is_authenticated:
        return Series.objects.none()
    if user.is_staff:
        return Series.objects.all()
    return Series.objects.filter(owner_id=user.pk)


def series_of(user: Any) -> QuerySet[Series]:
    """The user's own series, newest first."""
    if user is None or not user.is_authenticated:
        return Series.objects.none()
    return Series.objects.filter(owner_id=user.pk)


def series_matches(series: Series) -> list[dict[str, Any]]:
    """The series' matches, oldest first: id, deal, status (each one's page says the rest, to
    whom the matches' own visibility allows)."""
    return [
        {"id": str(pk), "deal": str(deal), "status": status}
        for pk, deal, status in Match.objects.filter(series=series)
        .order_by("created_at", "id")
        .values_list("id", "deal", "status")
    ]


PICKER_LIMIT = 100
"""Versions a picker's group offers at most (the newest of each bot first)."""


def player_choices(user: Any, game: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """What a series of ``game`` may seat, grouped for the form's pickers: ``user``'s own ready
    versions, other accounts' public bots' ready versions (named with their owner: two users'
    bots may share a name), and the built-ins; each choice is (player key, label).

    Only what the series service accepts from ``user`` (a private version of another account is
    neither offered nor, tournaments.play.services.seat_players, accepted); staff, who may seat
    any version, are offered their own and the public ones too, not every account's.
    """
    uid = visibility.user_id(user)
    ready = BotVersion.objects.filter(
        bot__in=play_selectors.bots_visible_to(user),
        bot__game=game,
        bot__is_active=True,
        status=BotVersion.Status.READY,
    ).select_related("bot__owner")
    mine = ready.filter(bot__owner_id=uid).order_by("bot__name", "-number")[:PICKER_LIMIT]
    public = (
        ready.filter(bot__is_public=True)
        .exclude(bot__owner_id=uid)
        .order_by("bot__name", "bot__owner__username", "-number")[:PICKER_LIMIT]
    )
    groups = [
        ("Your versions", [(f"v:{v.pk}", str(v)) for v in mine] if uid is not None else []),
        ("Public bots", [(f"v:{v.pk}", f"{v} by {v.bot.owner.get_username()}") for v in public]),
        ("Built-ins", [(f"builtin:{name}", builtin_label(name)) for name in builtin_names(game)]),
    ]
    return [(title, choices) for title, choices in groups if choices]


def builtin_label(name: str) -> str:
    return f"{name} (built-in)"


PRIVATE = "(private bot)"


def player_names(user: Any, players: Any) -> dict[str, str]:
    """Each player key's name as ``user`` may see it: a version as its bot's name and number
    ("Alpha v3"), a built-in by its name, a version of a bot ``user`` may not see (made private
    since the series began) as "(private bot)"."""
    wanted = {key: keys.version_id(key) for key in set(players)}
    ids = [vid for vid in wanted.values() if vid is not None]
    seen = {
        v.pk: str(v)
        for v in BotVersion.objects.filter(
            pk__in=ids, bot__in=play_selectors.bots_visible_to(user)
        ).select_related("bot")
    }
    return {
        key: builtin_label(key.removeprefix("builtin:")) if vid is None else seen.get(vid, PRIVATE)
        for key, vid in wanted.items()
    }
