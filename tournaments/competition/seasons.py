"""Seasons: validated state changes, the schedule, play at the season's pace, final standings.

States: ``draft -> open -> running <-> paused -> finished``, and ``cancelled`` from
any state before finished. Entrants can change while draft or open and are frozen
when the season starts, which is also when its schedule (fixtures) is drawn; Swiss
seasons draw each round when the previous one is over. Matches are created at
the season's pace by :func:`play_due` (a Celery beat task), never all at once, so
pausing stops new matches from starting, and finishing freezes the standings.
"""

from __future__ import annotations

import itertools
import math
import random
import secrets
from collections import Counter
from collections.abc import Sequence
from datetime import datetime

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from uuid_utils.compat import uuid7

from tournaments.competition import selectors
from tournaments.competition.models import Fixture, Season
from tournaments.play import services
from tournaments.play.models import BotVersion, Match
from tournaments.rating import keys, ratings

State = Season.State
Format = Season.Format

TRANSITIONS: dict[str, set[str]] = {
    State.DRAFT: {State.OPEN, State.CANCELLED},
    State.OPEN: {State.DRAFT, State.RUNNING, State.CANCELLED},
    State.RUNNING: {State.PAUSED, State.FINISHED, State.CANCELLED},
    State.PAUSED: {State.RUNNING, State.FINISHED, State.CANCELLED},
    State.FINISHED: set(),
    State.CANCELLED: set(),
}
MAX_ROUND_ROBIN_TABLES = 5000


def _move(season: Season, to: str) -> Season:
    """Lock the season and check the transition; raises services.Invalid naming both states."""
    locked = Season.objects.select_for_update().get(pk=season.pk)
    if to not in TRANSITIONS[locked.state]:
        raise services.Invalid({"state": f"a {locked.state} season cannot become {to}"})
    return locked


def players(season: Season) -> list[str]:
    return [e.player for e in season.entrants.order_by("id")]


def open_season(*, season: Season) -> Season:
    with transaction.atomic():
        season = _move(season, State.OPEN)
        season.state = State.OPEN
        season.save(update_fields=["state"])
    return season


def start_season(*, season: Season, rng: random.Random | None = None) -> Season:
    """Freeze the entrants and draw the schedule; matches start at ``starts_at`` (now if unset)."""
    rng = rng or random.Random(secrets.randbits(64))  # noqa: S311 (table draws need fairness, not secrecy; seeded from secrets)
    with transaction.atomic():
        season = _move(season, State.RUNNING)
        field = players(season)
        _check_field(season, field)
        season.state = State.RUNNING
        season.started_at = timezone.now()
        season.starts_at = season.starts_at or season.started_at
        season.save(update_fields=["state", "started_at", "starts_at"])
        if season.format == Format.SWISS:
            _draw_swiss_round(season, field, 1, rng)
        else:
            _save_tables(season, schedule(season, field, rng), rng)
    return season


def may_enter(game: str | None) -> Q:
    """The versions a season of ``game`` may enter, as a filter on BotVersion: ready, of an
    active bot, of the game (any game's when None). The one entry check: the season's start
    (``start_season``), its entrants that left since (``_departed``), the admin's picker and
    form (tournaments/site/season_admin.py)."""
    enterable = Q(status=BotVersion.Status.READY, bot__is_active=True)
    return enterable & Q(bot__game=game) if game else enterable


def _check_field(season: Season, field: Sequence[str]) -> None:
    if len(field) < season.seats:
        raise services.Invalid(
            {"entrants": f"a {season.seats}-seat season needs at least {season.seats} entrants"}
        )
    versions = [keys.version_id(p) for p in field]
    bad = BotVersion.objects.filter(id__in=[v for v in versions if v is not None]).exclude(
        may_enter(season.game)
    )
    if bad.exists():
        names = ", ".join(str(v) for v in bad.select_related("bot"))
        raise services.Invalid({"entrants": f"not ready, not active or not {season.game}: {names}"})
    if (
        season.format == Format.ROUND_ROBIN
        and math.comb(len(field), season.seats) > MAX_ROUND_ROBIN_TABLES
    ):
        raise services.Invalid(
            {"format": "a round robin of this field has too many tables; use balanced or Swiss"}
        )


def pause_season(*, season: Season) -> Season:
    """No new match starts; queued ones are cancelled and their fixtures wait for the resume."""
    with transaction.atomic():
        season = _move(season, State.PAUSED)
        season.state = State.PAUSED
        season.save(update_fields=["state"])
        waiting = list(
            Fixture.objects.filter(season=season, match__status=Match.Status.QUEUED).values_list(
                "id", flat=True
            )
        )
        services.cancel_queued_matches(
            matches=Match.objects.filter(fixture__in=waiting), reason="the season was paused"
        )
        Fixture.objects.filter(id__in=waiting, match__status=Match.Status.ABORTED).update(
            match=None
        )
    return season


def resume_season(*, season: Season) -> Season:
    with transaction.atomic():
        season = _move(season, State.RUNNING)
        if season.state != State.PAUSED:
            raise services.Invalid(
                {"state": f"only a paused season resumes, not a {season.state} one"}
            )
        season.state = State.RUNNING
        season.save(update_fields=["state"])
    return season


def finish_season(*, season: Season) -> Season:
    """Freeze the standings; fixtures not played by now are not played."""
    with transaction.atomic():
        season = _end(season, State.FINISHED, reason="the season finished")
        season.standings = selectors.fitted_standings(season)
        season.save(update_fields=["state", "finished_at", "standings"])
    return season


def cancel_season(*, season: Season) -> Season:
    with transaction.atomic():
        season = _end(season, State.CANCELLED, reason="the season was cancelled")
        season.save(update_fields=["state", "finished_at"])
    return season


def _end(season: Season, state: str, *, reason: str) -> Season:
    """Move ``season`` (locked) to its last ``state``, its queued matches aborted; unsaved."""
    season = _move(season, state)
    services.cancel_queued_matches(matches=Match.objects.filter(season=season), reason=reason)
    season.state = state
    season.finished_at = timezone.now()
    return season


# The schedule


def schedule(season: Season, field: Sequence[str], rng: random.Random) -> list[list[str]]:
    """The season's tables (each a list of players), by its format."""
    if season.format == Format.ROUND_ROBIN:
        return [list(t) for t in itertools.combinations(field, season.seats)]
    return balanced_tables(field, season.seats, season.rounds, rng)


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def balanced_tables(
    field: Sequence[str], seats: int, rounds: int, rng: random.Random, tries: int = 200
) -> list[list[str]]:
    """``rounds`` rounds in which every entrant (but the round's byes) sits at one table.

    Each round is the best of ``tries`` random splits of the field: the one that
    keeps pair meetings most even (least sum of squared meeting counts), so every
    pair meets about equally often; byes go to those who have had the fewest.
    """
    met: Counter[tuple[str, str]] = Counter()
    byes: Counter[str] = Counter()
    tables: list[list[str]] = []
    for _ in range(rounds):
        order = list(field)
        rng.shuffle(order)
        order.sort(key=lambda p: -byes[p])  # most byes so far first: they play this round
        playing = order[: len(order) - len(order) % seats]
        for p in order[len(playing) :]:
            byes[p] += 1
        best: list[list[str]] = []
        best_cost = math.inf
        for _ in range(tries):
            rng.shuffle(playing)
            split = [playing[i : i + seats] for i in range(0, len(playing), seats)]
            cost = sum(
                2 * met[_pair(a, b)] + 1 for t in split for a, b in itertools.combinations(t, 2)
            )
            if cost < best_cost:
                best, best_cost = [list(t) for t in split], cost
        for table in best:
            for a, b in itertools.combinations(table, 2):
                met[_pair(a, b)] += 1
            tables.append(table)
    return tables


def _save_tables(
    season: Season,
    tables: Sequence[Sequence[str]],
    rng: random.Random,
    round_number: int | None = None,
) -> None:
    """Each table as its games: the same deal once per seat rotation (or games_per_table)."""
    per_table = season.games_per_table or season.seats
    fixtures = []
    tables_per_round = max(1, season.entrants.count() // season.seats)
    for index, table in enumerate(tables):
        # Secret until the deal is over, and a finished deal publishes its seed: from the OS,
        # never from the table draw's generator, whose outputs a run of published seeds gives away.
        seed = secrets.randbits(63)
        # The table's games deal the same cards: one deal key, so none opens before all are over.
        deal = uuid7() if per_table > 1 else None
        for game in range(per_table):
            r = game % len(table)
            fixtures.append(
                Fixture(
                    season=season,
                    round=round_number or index // tables_per_round + 1,
                    table=index + 1,
                    game_number=game + 1,
                    players=[*table[r:], *table[:r]],
                    seed=seed,
                    deal=deal,
                )
            )
    Fixture.objects.bulk_create(fixtures)


def _draw_swiss_round(
    season: Season, field: Sequence[str], number: int, rng: random.Random
) -> None:
    """Swiss: entrants in order of their season rating so far, in consecutive tables."""
    current = {
        (r.pool, r.player): ratings.Skill(mu=r.mu, sigma=r.sigma, elo=r.elo, games=r.games)
        for r in season.ratings.all()
    }
    pool = f"season:{season.pk}"
    book = ratings.Book(current)
    order = sorted(field, key=lambda p: (-book.skill(pool, p).mu, rng.random()))
    sitting_out = len(order) % season.seats
    if sitting_out:
        # The bye goes to the lowest rated this round, rotating by round number.
        shift = (number - 1) % len(order)
        order = order[-shift:] + order[:-shift] if shift else order
        order = order[: len(order) - sitting_out]
    tables = [order[i : i + season.seats] for i in range(0, len(order), season.seats)]
    _save_tables(season, tables, rng, round_number=number)


# Play at the season's pace


def due(season: Season, now: datetime) -> int:
    """How many of the season's matches should have been started by ``now``."""
    if season.starts_at is None or now < season.starts_at:
        return 0
    hours = (now - season.starts_at).total_seconds() / 3600.0
    return 1 + math.floor(hours * season.matches_per_hour)


def play_due(*, season: Season, now: datetime | None = None) -> list[Match]:
    """Start the fixtures that the pace allows by now; finish the season when all are played."""
    now = now or timezone.now()
    with transaction.atomic():
        season = Season.objects.select_for_update().get(pk=season.pk)
        if season.state != State.RUNNING:
            return []
        started = Fixture.objects.filter(season=season, match__isnull=False).count()
        waiting = list(
            Fixture.objects.filter(season=season, match__isnull=True).order_by(
                "round", "table", "game_number"
            )[: max(0, due(season, now) - started)]
        )
        created = []
        gone = _departed(season)
        for fixture in waiting:
            match = _start(season, fixture)
            if gone & set(fixture.players):  # a disabled bot's game is void, not played
                services.cancel_queued_matches(
                    matches=Match.objects.filter(pk=match.pk), reason="a bot was disabled"
                )
            created.append(match)
        if not created and _all_played(season):
            if season.format == Format.SWISS and _swiss_round(season) < season.rounds:
                _draw_swiss_round(
                    season,
                    players(season),
                    _swiss_round(season) + 1,
                    random.Random(secrets.randbits(64)),  # noqa: S311 (table draws need fairness, not secrecy; seeded from secrets)
                )
            else:
                finish_season(season=season)
    return created


def _departed(season: Season) -> set[str]:
    """Entrants whose bot was disabled (or version rejected) since the season started."""
    ids = [v for v in map(keys.version_id, players(season)) if v is not None]
    ok = set(BotVersion.objects.filter(may_enter(None), id__in=ids).values_list("id", flat=True))
    return {f"v:{v}" for v in ids if v not in ok}


def _swiss_round(season: Season) -> int:
    last = (
        Fixture.objects.filter(season=season)
        .order_by("-round")
        .values_list("round", flat=True)
        .first()
    )
    return last or 0


def _all_played(season: Season) -> bool:
    fixtures = Fixture.objects.filter(season=season)
    if not fixtures.exists():
        return False
    return (
        not fixtures.filter(match__isnull=True).exists()
        and not fixtures.filter(
            match__status__in=[Match.Status.QUEUED, Match.Status.RUNNING]
        ).exists()
    )


def _start(season: Season, fixture: Fixture) -> Match:
    """The fixture's rated match, queued, and the fixture pointing at it."""
    match = services.create_rated_match(
        game=season.game,
        players=fixture.players,
        seed=fixture.seed,
        options=season.options,
        season_id=season.pk,
        deal=fixture.deal,
    )
    fixture.match = match
    fixture.save(update_fields=["match"])
    return match


def play_all_due() -> int:
    return sum(len(play_due(season=s)) for s in Season.objects.filter(state=State.RUNNING))


def rerun_void(*, season: Season) -> int:
    """Play again each fixture whose match was void (aborted or cancelled) while the season runs."""
    count = 0
    with transaction.atomic():
        season = Season.objects.select_for_update().get(pk=season.pk)
        if season.state not in (State.RUNNING, State.PAUSED):
            raise services.Invalid({"state": f"a {season.state} season plays no more matches"})
        for fixture in Fixture.objects.select_for_update().filter(
            season=season, match__status=Match.Status.ABORTED
        ):
            _start(season, fixture)
            count += 1
    return count


def recompute_standings(*, season: Season) -> Season:
    """Fit the standings again from the results (a finished season's stay frozen otherwise)."""
    with transaction.atomic():
        season = Season.objects.select_for_update().get(pk=season.pk)
        season.standings = selectors.fitted_standings(season)
        season.save(update_fields=["standings"])
    return season
