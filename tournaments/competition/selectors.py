"""Competition's reads: ladders, seasons and their fixtures, for the API, the pages and play."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import (
    CharField,
    Count,
    Exists,
    F,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.functions import Cast, Coalesce, Concat
from django.utils import timezone

from config import queues
from games.engine.builtin import builtin_names
from tournaments.competition.models import Fixture, Ladder, LadderRound, Season, Series
from tournaments.play import read_cache, visibility
from tournaments.play import selectors as play_selectors
from tournaments.play.models import BUILTIN_BOTS, BotVersion, Match, Seat
from tournaments.play.selectors import sights
from tournaments.rating import keys, ladder_order, ratings, sprt
from tournaments.rating.models import Rating

Z95 = sprt.Z95

SEASON_OVER = (Season.State.FINISHED, Season.State.CANCELLED)
"""A season that plays no more fixtures: one not played by then never will be."""


def fixture_to_play(deal: Any) -> Q:
    """Whether a fixture of the duplicate deal ``deal`` (a key, or ``OuterRef("deal")``) may still
    be played: not started yet, or void while its season runs (staff may re-run it, on the same
    seed). Play's visibility asks it (``tournaments.play.selectors.sights.DEAL_PLAYS_ON``)."""
    to_play = (
        Fixture.objects.filter(deal=deal)
        .exclude(season__state__in=SEASON_OVER)
        .filter(Q(match__isnull=True) | Q(match__status=Match.Status.ABORTED))
    )
    return Q(Exists(to_play))


# --- ladders ----------------------------------------------------------------------------------


def ladders() -> QuerySet[Ladder]:
    return Ladder.objects.all()


def ladder_by_id(pk: int) -> Ladder | None:
    return Ladder.objects.filter(pk=pk).first()


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


def ladder_choices() -> list[tuple[int, str]]:
    """Every ladder's (key, name), by name (the match list's ladder filter)."""
    return list(Ladder.objects.order_by("name").values_list("pk", "name"))


def pool(ladder: Ladder) -> str:
    return f"ladder:{ladder.pk}"


def ratings_of(ladder: Ladder) -> QuerySet[Rating]:
    """The ladder's ratings, built-in bots included, in the ladder's order (ladder_order.ranked:
    best first, each annotated with ``provisional`` and ``score``)."""
    return ladder_order.ranked(pool(ladder))


TOPS_SECONDS = 15
"""How long the home page's ladder tops are kept. A time, not an invalidation: ratings move with
every rated match (10-20 a second at the planned rate), so clearing on each write would keep
nothing, and a top ten 15 seconds old is as good on a home page."""
TOPS_KEY = "home:ladder-tops:1"


def tops(limit: int = 10) -> list[tuple[Ladder, list[Rating]]]:
    """Each ladder, by game then name, with its best ``limit`` ratings (``ratings_of``'s order).

    The ranking is cached (Redis, ``TOPS_SECONDS``); who the players are is not: the versions and
    bots are read at each call, so a bot made private is never named from the cache."""

    def rank() -> list[tuple[Ladder, list[dict[str, Any]]]]:
        return [
            (ladder, list(ratings_of(ladder).values(*_TOP_FIELDS)[:limit]))
            for ladder in ladders_by_game()
        ]

    ranked = read_cache.remember(TOPS_KEY, rank, timeout=TOPS_SECONDS)
    wanted = {row["bot_version_id"] for _, rows in ranked for row in rows}
    versions = BotVersion.objects.select_related("bot").in_bulk(wanted - {None})
    return [
        (
            ladder,
            [
                Rating(
                    **{k: v for k, v in row.items() if k != "bot_version_id"},
                    bot_version=versions.get(row["bot_version_id"]),
                )
                for row in rows
                if row["bot_version_id"] is None or row["bot_version_id"] in versions
            ],
        )
        for ladder, rows in ranked
    ]


_TOP_FIELDS = ("bot_version_id", "builtin", "rating", "deviation", "conservative", "games")


def members(ladder: Ladder) -> list[str]:
    """Each active bot's active version of the ladder's game (the one its owner chose, else its
    newest ready one), and its built-in bots."""
    ready = BotVersion.objects.filter(
        bot__game=ladder.game, bot__is_active=True, status=BotVersion.Status.READY
    )
    # A chosen version is ready (services.activate_version): its bot plays it, not its newest.
    chosen = list(ready.filter(bot__active_version=F("pk")).values_list("id", flat=True))
    newest = (
        ready.filter(bot__active_version__isnull=True)
        .values("bot_id")
        .annotate(number=Max("number"))
    )
    wanted = Q()
    for row in newest:
        wanted |= Q(bot_id=row["bot_id"], number=row["number"])
    versions = chosen + (
        list(BotVersion.objects.filter(wanted).values_list("id", flat=True)) if newest else []
    )
    builtins = [b for b in ladder.builtins if b in BUILTIN_BOTS]
    return [f"v:{v}" for v in sorted(versions)] + [f"builtin:{b}" for b in builtins]


def member_counts(ladders: list[Ladder]) -> dict[int, int]:
    """``len(members(ladder))`` for each ladder, in one query however many ladders (lists)."""
    newest = (
        BotVersion.objects.filter(bot=OuterRef("bot"), status=BotVersion.Status.READY)
        .order_by("-number")
        .values("number")[:1]
    )
    per_game = dict(
        BotVersion.objects.filter(
            bot__game__in={ladder.game for ladder in ladders},
            bot__is_active=True,
            status=BotVersion.Status.READY,
            number=Subquery(newest),
        )
        .values("bot__game")
        .annotate(n=Count("id"))
        .values_list("bot__game", "n")
    )
    return {
        ladder.pk: per_game.get(ladder.game, 0)
        + len([b for b in ladder.builtins if b in BUILTIN_BOTS])
        for ladder in ladders
    }


# --- seasons ----------------------------------------------------------------------------------


def seasons() -> QuerySet[Season]:
    return Season.objects.all()


def season_by_id(pk: int) -> Season | None:
    return Season.objects.filter(pk=pk).first()


def season_choices() -> list[tuple[int, str]]:
    """Every season's (key, name), by name (the match list's season filter)."""
    return list(Season.objects.order_by("name").values_list("pk", "name"))


def running_seasons() -> QuerySet[Season]:
    """The seasons being played, newest first."""
    return Season.objects.filter(state=Season.State.RUNNING).order_by("-created_at")


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


# A season's standings


def season_results(season: Season) -> list[dict[str, int]]:
    """Each finished match of the season as ``{player: rank}``.

    The seats' ranks, written from each ``match_finished`` event in the statement that appends
    it (the result projection), as the season's end reads its matches' status: the ratings'
    feed comes later (docs/architecture.md, "Ratings and standings: two reads of the results").
    """
    by_match: dict[Any, dict[str, int]] = {}
    seats = Seat.objects.filter(
        match__season=season, match__status=Match.Status.FINISHED, rank__isnull=False
    ).values_list("match_id", "bot_version_id", "builtin", "rank")
    for match_id, version, builtin, rank in seats:
        by_match.setdefault(match_id, {})[
            keys.player_of(bot_version_id=version, builtin=builtin)
        ] = int(rank or 0)
    return list(by_match.values())


def player_label(player: str) -> str:
    vid = keys.version_id(player)
    if vid is None:
        return player
    version = BotVersion.objects.select_related("bot").filter(pk=vid).first()
    return str(version) if version else player


def fitted_standings(season: Season) -> list[dict[str, Any]]:
    """Maximum-likelihood standings of the season's results so far, with 95% intervals."""
    return [
        {
            "place": s.place,
            "player": s.player,
            "name": player_label(s.player),
            "elo": round(s.elo, 1),
            "low": round(s.low, 1),
            "high": round(s.high, 1),
            "games": s.games,
        }
        for s in ratings.season_standings(season_results(season))
    ]


def standings_seen_by(season: Season, user: Any) -> list[dict[str, Any]]:
    """The standings as ``user`` may read them: frozen once fitted, else fitted now; private
    bots under the neutral label and an opaque key for anyone but their owner and staff."""
    rows = season.standings if season.standings is not None else fitted_standings(season)
    hidden = hidden_entrants(season, user)
    return [
        {**r, "player": visibility.opaque_player(r["player"]), "name": visibility.PRIVATE_BOT}
        if r["player"] in hidden
        else r
        for r in rows
    ]


def hidden_entrants(season: Season, user: Any) -> set[str]:
    """The season's private bots' player keys that ``user`` sees only as opaque keys."""
    return {
        e.player
        for e in season.entrants.select_related("bot_version__bot")
        if visibility.hides_player(user, e.bot_version)
    }


def fixtures_done(season: Season) -> tuple[int, int]:
    """(matches finished, matches scheduled) so far."""
    fixtures = Fixture.objects.filter(season=season)
    return fixtures.filter(match__status=Match.Status.FINISHED).count(), fixtures.count()


def last_ladder_round(ladder: Ladder) -> LadderRound | None:
    return ladder.rounds.order_by("-slot").first()


DEFAULT_ROUND_SECONDS = queues.LADDER_ROUND_SECONDS
"""The slot length when no enabled interval task runs the rounds (the migration's default)."""
CRONTAB_ROUND_SECONDS = 60
"""A crontab schedule fires at most once a minute."""


def ladder_round_tasks() -> list[Any]:
    """The enabled periodic tasks that play the ladders' rounds (django-celery-beat's rows,
    staff's to change in the admin): the one read of them, for the slot's length
    (``round_seconds``) and the next round's time (``next_ladder_round``)."""
    from django_celery_beat.models import PeriodicTask

    return list(
        PeriodicTask.objects.filter(task=queues.RUN_LADDERS, enabled=True).select_related(
            "interval", "crontab"
        )
    )


def round_seconds() -> int:
    """The length of a round's time slot: the shortest interval of the tasks that play the
    rounds (a crontab's is a minute)."""
    lengths = []
    for task in ladder_round_tasks():
        if task.interval is not None:
            lengths.append(int(task.interval.schedule.run_every.total_seconds()))
        else:
            lengths.append(CRONTAB_ROUND_SECONDS)
    return max(1, min(lengths)) if lengths else DEFAULT_ROUND_SECONDS


def next_ladder_round(ladder: Ladder, now: datetime) -> datetime | None:
    """When the ladder's next round is due: the next run of the tasks that play the rounds
    (``ladder_round_tasks``), None if the ladder is inactive or no task runs the rounds."""
    if not ladder.is_active:
        return None
    found: list[datetime] = []
    for task in ladder_round_tasks():
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
    opened = Match.objects.filter(pk=OuterRef("match_id")).filter(sights.deal_over_q())
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


def sequential_test(series: Series) -> sprt.SequentialTest:
    test = series.test or {}
    return sprt.SequentialTest(
        elo0=test["elo0"],
        elo1=test["elo1"],
        alpha=test["alpha"],
        beta=test["beta"],
        max_pairs=test["max_games"],
    )


# --- a series' results -------------------------------------------------------------------------


@dataclass(frozen=True)
class Game:
    """One finished match of a series, as its results read it."""

    match_id: Any
    deal: Any
    finished_at: datetime
    players: list[str]
    ranks: list[int]
    scores: list[float]


def games(series: Series) -> list[Game]:
    """The series' finished matches, in finishing order, from the seats' results (written by
    the result trigger from each ``match_finished`` event)."""
    rows = (
        Seat.objects.filter(match__series=series, match__status=Match.Status.FINISHED)
        .order_by("match__finished_at", "match_id", "number")
        .values_list(
            "match_id",
            "match__deal",
            "match__finished_at",
            "bot_version_id",
            "builtin",
            "rank",
            "score",
        )
    )
    by_match: dict[Any, Game] = {}
    for match_id, deal, finished_at, version, builtin, rank, score in rows:
        # A finished match has its end time: the result trigger sets both at once.
        ended = finished_at or timezone.now()
        game = by_match.setdefault(match_id, Game(match_id, deal, ended, [], [], []))
        game.players.append(keys.player_of(bot_version_id=version, builtin=builtin))
        game.ranks.append(int(rank or 0))
        game.scores.append(float(score or 0.0))
    return list(by_match.values())


@dataclass(frozen=True)
class Pair:
    """An A/B test's finished pair: the candidate's game and its twin's, on one deal."""

    deal: Any
    seat: int
    candidate: Game
    baseline: Game
    outcome: sprt.PairOutcome


def pairs(series: Series) -> list[Pair]:
    """The test's finished pairs in the order they finished (their later game's end)."""
    test = series.test or {}
    by_deal: dict[Any, list[Game]] = defaultdict(list)
    for game in games(series):
        by_deal[game.deal].append(game)
    found: list[tuple[datetime, Pair]] = []
    for deal, twins in by_deal.items():
        mine = [g for g in twins if test.get("candidate") in g.players]
        theirs = [g for g in twins if test.get("baseline") in g.players]
        if len(mine) != 1 or len(theirs) != 1:
            continue  # its twin is still playing, or was aborted: no pair
        a, b = mine[0], theirs[0]
        seat = a.players.index(test["candidate"])
        outcome = sprt.pair_outcome(
            sprt.finish(a.ranks, a.scores, seat), sprt.finish(b.ranks, b.scores, seat)
        )
        found.append((max(a.finished_at, b.finished_at), Pair(deal, seat, a, b, outcome)))
    found.sort(key=lambda item: (item[0], str(item[1].deal)))
    return [pair for _, pair in found]


def _mean_interval(values: Sequence[float]) -> dict[str, float | None]:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return {"mean": mean, "low": None, "high": None}
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = Z95 * sd / math.sqrt(n)
    return {"mean": mean, "low": mean - half, "high": mean + half}


def wilson(successes: int, n: int) -> dict[str, float]:
    """A share and its 95% Wilson interval (sensible for a few games and for 0 or n)."""
    share = successes / n
    z2 = Z95 * Z95
    centre = (share + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(share * (1 - share) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return {"share": share, "low": max(0.0, centre - half), "high": min(1.0, centre + half)}


def player_results(played: Sequence[Game]) -> list[dict[str, Any]]:
    """Per player: games, mean rank, mean score and share of wins (rank 1), each with its 95%
    interval (normal for the means, Wilson for the share)."""
    ranks: dict[str, list[float]] = defaultdict(list)
    scores: dict[str, list[float]] = defaultdict(list)
    for game in played:
        for player, rank, score in zip(game.players, game.ranks, game.scores, strict=True):
            ranks[player].append(rank)
            scores[player].append(score)
    return [
        {
            "player": player,
            "games": len(ranks[player]),
            "rank": _mean_interval(ranks[player]),
            "score": _mean_interval(scores[player]),
            "wins": wilson(sum(1 for r in ranks[player] if r == 1), len(ranks[player])),
        }
        for player in sorted(ranks, key=lambda p: (sum(ranks[p]) / len(ranks[p]), p))
    ]


def head_to_head(played: Sequence[Game]) -> list[dict[str, Any]]:
    """For each two players who met: how often the first finished above, level with and below
    the second in the same game."""
    table: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for game in played:
        for i, a in enumerate(game.players):
            for j, b in enumerate(game.players):
                if a < b:
                    counts = table[(a, b)]
                    ri, rj = game.ranks[i], game.ranks[j]
                    counts[0 if ri < rj else 1 if ri == rj else 2] += 1
    return [
        {"player": a, "opponent": b, "above": c[0], "equal": c[1], "below": c[2], "games": sum(c)}
        for (a, b), c in sorted(table.items())
    ]


def strengths(played: Sequence[Game]) -> list[dict[str, Any]]:
    """The season fit (Plackett-Luce strengths on the Elo scale, with 95% intervals)."""
    results = [dict(zip(game.players, game.ranks, strict=True)) for game in played]
    return [
        {
            "place": s.place,
            "player": s.player,
            "elo": round(s.elo, 1),
            "low": round(s.low, 1),
            "high": round(s.high, 1),
            "games": s.games,
        }
        for s in ratings.season_standings(results)
    ]


def ab_test_state(series: Series) -> dict[str, Any] | None:
    """An A/B test's state: its bounds, the LLR after each pair, the counts, the Elo estimate
    with its interval and the verdict (``continue`` while it runs)."""
    if series.test is None:
        return None
    test = sequential_test(series)
    finished = pairs(series)
    if series.decided_pairs is not None:
        finished = finished[: series.decided_pairs]
    counts = sprt.Counts()
    path = []
    for pair in finished:
        counts = counts.add(pair.outcome)
        path.append(round(test.llr(counts), 4))
    found = sprt.estimate(counts)
    verdict = series.verdict or (
        "cancelled" if series.state == Series.State.CANCELLED else str(test.verdict(counts))
    )
    return {
        "lower": round(test.lower, 4),
        "upper": round(test.upper, 4),
        "llr": path,
        "pairs": counts.pairs,
        "counts": {"below": counts.losses, "equal": counts.draws, "above": counts.wins},
        "elo": None
        if found is None
        else {"elo": _finite(found.elo), "low": _finite(found.low), "high": _finite(found.high)},
        "verdict": verdict,
    }


def _finite(value: float) -> float | None:
    """JSON has no infinity: an unbounded end is null."""
    return round(value, 1) if math.isfinite(value) else None


def series_results(series: Series) -> dict[str, Any]:
    """Everything the series' page and API show, from its finished matches."""
    played = games(series)
    return {
        "games": len(played),
        "players": player_results(played),
        "head_to_head": head_to_head(played),
        "strengths": strengths(played),
        "test": ab_test_state(series),
    }
