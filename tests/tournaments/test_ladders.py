"""Ladder membership and rounds against the real database (matches are queued, not played)."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import BotFactory, BotVersionFactory, RatingFactory, UserFactory, finish
from tournaments.competition import ladders, matchmaking
from tournaments.competition import selectors as competition_selectors
from tournaments.competition.models import Ladder
from tournaments.play import services
from tournaments.play.models import BotVersion, Match
from tournaments.rating import ratings

pytestmark = pytest.mark.django_db


@pytest.fixture
def ladder() -> Ladder:
    return Ladder.objects.create(
        name="brexit duels", game="brexit", seats=2, builtins=["random", "greedy", "search"]
    )


def seatings(match: Match) -> list[str]:
    return [
        f"v:{s.bot_version_id}" if s.bot_version_id else f"builtin:{s.builtin}"
        for s in match.seats.order_by("number")
    ]


def test_members_are_each_active_bots_newest_ready_version_and_the_builtins(ladder: Ladder) -> None:
    bot = BotFactory()
    BotVersionFactory(bot=bot)
    newest = BotVersionFactory(bot=bot)
    BotVersionFactory(bot=bot, status=BotVersion.Status.PENDING)  # not ready yet: v2 plays on
    BotVersionFactory(bot=BotFactory(is_active=False))
    BotVersionFactory(status=BotVersion.Status.REJECTED)
    BotVersionFactory(bot=BotFactory(game="brasilis"))
    assert competition_selectors.members(ladder) == [
        f"v:{newest.pk}",
        "builtin:random",
        "builtin:greedy",
        "builtin:search",
    ]


def test_a_round_seats_each_free_member_once_in_duplicate_sets(ladder: Ladder) -> None:
    versions = [BotVersionFactory() for _ in range(3)]
    created = ladders.play_round(ladder, random.Random(1))
    assert len(created) == 3 * 2  # six members, three tables, one game per seat rotation
    assert all(m.rated and m.ladder_id == ladder.pk and m.status == "queued" for m in created)
    by_seed: dict[int, list[list[str]]] = {}
    for match in created:
        by_seed.setdefault(match.seed, []).append(seatings(match))
    assert len(by_seed) == 3
    for games in by_seed.values():
        assert games[1] == list(reversed(games[0]))  # the same deal with the seats swapped
    seated = Counter(p for games in by_seed.values() for p in games[0])
    assert set(seated) == {f"v:{v.pk}" for v in versions} | {
        "builtin:random",
        "builtin:greedy",
        "builtin:search",
    }
    assert set(seated.values()) == {1}
    # Everyone is waiting for a game: the next round seats nobody.
    assert ladders.play_round(ladder, random.Random(2)) == []


def test_the_daily_cap_sits_a_bot_out(ladder: Ladder) -> None:
    ladder.games_per_day = 3
    ladder.save()
    for match in ladders.play_round(ladder, random.Random(1)):
        finish(match)
    second = ladders.play_round(ladder, random.Random(2))
    assert second == []  # two games played, two more would pass the cap of three


def test_a_deactivated_bot_leaves_and_its_queued_matches_are_cancelled(ladder: Ladder) -> None:
    version = BotVersionFactory()
    created = ladders.play_round(ladder, random.Random(4))
    mine = [m for m in created if f"v:{version.pk}" in seatings(m)]
    assert mine
    services.deactivate_bot(bot=version.bot)  # type: ignore[arg-type]
    for match in mine:
        match.refresh_from_db()
        assert match.status == Match.Status.ABORTED and match.error.startswith("cancelled")
    assert f"v:{version.pk}" not in competition_selectors.members(ladder)
    others = Match.objects.exclude(id__in=[m.id for m in mine])
    assert set(others.values_list("status", flat=True)) == {"queued"}


def test_a_rejected_version_leaves_at_the_next_round_with_its_queued_matches(
    ladder: Ladder,
) -> None:
    version = BotVersionFactory()
    created = ladders.play_round(ladder, random.Random(4))
    mine = [m.id for m in created if f"v:{version.pk}" in seatings(m)]
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.REJECTED)
    ladders.play_round(ladder, random.Random(5))
    assert set(Match.objects.filter(id__in=mine).values_list("status", flat=True)) == {"aborted"}


def test_entrants_carry_ratings_and_recent_games(ladder: Ladder) -> None:
    RatingFactory(
        ladder=ladder,
        player="builtin:search",
        mu=30.0,
        sigma=2.0,
        elo=1600.0,
        rating=1647.4,
        deviation=59.0,
        conservative=1470.0,
        games=40,
    )
    version = BotVersionFactory()  # four members: two tables, everyone seated
    ladders.play_round(ladder, random.Random(1))
    everyone, pending = ladders.entrants(ladder, competition_selectors.members(ladder))
    search = next(e for e in everyone if e.player == "builtin:search")
    assert search.deviation == pytest.approx(2.0 * 29.48, abs=0.1)
    assert search.recent_games == 2
    assert pending == {"builtin:random", "builtin:greedy", "builtin:search", f"v:{version.pk}"}


def test_seed_weight_rises_with_uncertainty_and_falls_with_recent_games() -> None:
    sure = matchmaking.Entrant("a", 1500, 50, 0)
    unsure = matchmaking.Entrant("b", 1500, 200, 0)
    busy = matchmaking.Entrant("c", 1500, 200, 10)
    assert matchmaking.seed_weight(unsure) > matchmaking.seed_weight(sure)
    assert matchmaking.seed_weight(busy) < matchmaking.seed_weight(unsure)


def test_tables_are_filled_from_the_seeds_rating_window_at_random() -> None:
    field = [matchmaking.Entrant(f"p{i:02d}", 1000 + 100 * i, 50) for i in range(20)]
    settings = matchmaking.Settings(seats=4, window=4, tables=1)
    tables = {
        tuple(sorted(matchmaking.round_tables(field, settings, random.Random(s))[0]))
        for s in range(200)
    }
    for table in tables:
        ratings_at = sorted(int(p[1:]) for p in table)
        assert ratings_at[-1] - ratings_at[0] <= 8  # seed plus its four nearest on either side
    assert len(tables) > 20  # random filling: many different tables, not one fixed grouping


def test_a_placing_bot_gets_the_first_table_among_the_settled_bots_nearest_it() -> None:
    field = [matchmaking.Entrant(f"p{i:02d}", 1000 + 100 * i, 50) for i in range(20)]
    newcomer = matchmaking.Entrant("new", 1950, 246)  # between p09 and p10, far less certain
    settings = matchmaking.Settings(seats=4, placement_window=4)
    assert matchmaking.placing([*field, newcomer], settings) == [newcomer]
    firsts = [
        matchmaking.round_tables([*field, newcomer], settings, random.Random(s))[0]
        for s in range(50)
    ]
    for table in firsts:
        assert "new" in table
        assert set(table) - {"new"} <= {"p08", "p09", "p10", "p11"}
    assert len({tuple(sorted(t)) for t in firsts}) == 4  # three of the four, at random


def test_a_field_of_equally_uncertain_bots_has_no_placing_bot() -> None:
    field = [matchmaking.Entrant(f"p{i:02d}", 1500, 246) for i in range(8)]
    assert matchmaking.placing(field, matchmaking.Settings(seats=4)) == []


def test_the_admins_ladder_page_lists_ratings_in_the_ladders_order_marking_provisional(
    ladder: Ladder, client: Client
) -> None:
    client.force_login(UserFactory(is_staff=True, is_superuser=True))  # type: ignore[arg-type]
    RatingFactory(ladder=ladder, player="builtin:random", skill=ratings.Skill(mu=20.0, games=30))
    RatingFactory(ladder=ladder, player="builtin:greedy", skill=ratings.Skill(mu=35.0, games=5))
    html = client.get(reverse("admin:tournaments_ladder_change", args=[ladder.pk])).content.decode()
    assert re.search(r"1\. builtin:random: \d+ ± \d+ \(Elo \d+, 30 games\)", html)
    assert re.search(r"2\. builtin:greedy: \d+ ± \d+ \(Elo \d+, 5 games, provisional\)", html)


def test_a_deals_seed_never_comes_from_the_table_draw(ladder: Ladder) -> None:
    # A finished deal publishes its seed while later deals are still secret: seeds drawn one
    # after another from the table draw's Mersenne Twister would give the later ones away
    # (about 630 published seeds predict every next one: issue 21's outside review).
    for _ in range(3):
        BotVersionFactory()
    first = {finish(m).seed for m in ladders.play_round(ladder, random.Random(1))}
    again = {m.seed for m in ladders.play_round(ladder, random.Random(1))}
    assert len(first) == len(again) == 3
    assert not first & again  # the same draw of tables, but fresh deals
