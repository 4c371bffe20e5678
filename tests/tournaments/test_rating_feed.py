"""Ratings as a read model: each rated result counts once, in feed order, and rebuilds exactly."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from django.db import connection
from django.db.models import Max

from games.engine.platform_events import MATCH_FINISHED
from replays import feed, store
from replays.models import Event, FeedCheckpoint
from replays.store import NewEvent
from tests import factories
from tests.factories import BotVersionFactory, MatchFactory, SeatFactory, outcome_of
from tests.support.processes import wait_until
from tournaments.competition import selectors as competition_selectors
from tournaments.competition.models import Ladder
from tournaments.play.models import Match
from tournaments.rating import rating_feed, ratings
from tournaments.rating.models import Rating, RatingHistory

pytestmark = pytest.mark.django_db(transaction=True)
FENCE_WAIT = 180.0


def finish(
    players: list[object], ranks: list[int], *, ladder: Ladder | None = None, rated: bool = True
) -> Match:
    """A rated match of ``players`` (built-in names or versions) with its match_finished event."""
    match = MatchFactory(rated=rated, ladder=ladder)
    for number, player in enumerate(players):
        if isinstance(player, str):
            SeatFactory(match=match, number=number, bot_version=None, builtin=player)
        else:
            SeatFactory(match=match, number=number, bot_version=player)
    return factories.finish(match, outcome_of(ranks, [float(-r) for r in ranks]))


def settle(consume: Callable[[], int], expected: int) -> None:
    """Consume until ``expected`` history rows exist: an open transaction anywhere on the
    server (another test run, in any database) holds the feed's fence back, by design."""

    def rated() -> bool:
        consume()
        return RatingHistory.objects.count() >= expected

    wait_until(rated, FENCE_WAIT, f"{expected} history rows", seen=RatingHistory.objects.count)
    assert RatingHistory.objects.count() == expected


def stored() -> dict[tuple[str, str], tuple[float, float, float, int]]:
    return {(r.pool, r.player): (r.mu, r.sigma, r.elo, r.games) for r in Rating.objects.all()}


@pytest.fixture
def ladder() -> Ladder:
    return Ladder.objects.create(name="brexit 4", game="brexit", seats=4)


def test_ratings_follow_results_in_feed_order(ladder: Ladder) -> None:
    finish(["random", "greedy", "search"], [3, 2, 1], ladder=ladder)
    finish(["random", "greedy", "search"], [2, 1, 3], ladder=ladder)
    finish(["random", "greedy"], [1, 2], rated=False)  # a challenge: never rated
    settle(rating_feed.consume, 6)
    book = ratings.Book()
    pool = f"ladder:{ladder.pk}"
    book.apply(
        ratings.Result(
            1, "a", pool, ("builtin:random", "builtin:greedy", "builtin:search"), (3, 2, 1)
        )
    )
    book.apply(
        ratings.Result(
            2, "b", pool, ("builtin:random", "builtin:greedy", "builtin:search"), (2, 1, 3)
        )
    )
    assert stored() == {k: (s.mu, s.sigma, s.elo, s.games) for k, s in book.skills.items()}
    greedy = RatingHistory.objects.filter(player="builtin:greedy").order_by("position")
    assert [h.rank for h in greedy] == [2, 1]
    assert greedy[1].rating_before == greedy[0].rating_after
    assert greedy[1].change > 0


def test_the_same_event_consumed_twice_counts_once(ladder: Ladder) -> None:
    for i in range(3):
        finish(
            ["random", "greedy", "search"],
            [1 + i % 3, 1 + (i + 1) % 3, 1 + (i + 2) % 3],
            ladder=ladder,
        )
    settle(rating_feed.consume, 9)
    before = stored()
    # The checkpoint is lost (a restored backup, a renamed consumer): the events come again.
    FeedCheckpoint.objects.filter(consumer=rating_feed.CONSUMER).delete()
    assert rating_feed.consume() >= 3
    rating_feed.consume("a-second-consumer")
    assert stored() == before
    assert RatingHistory.objects.count() == 9


def test_two_consumers_at_once_count_each_result_once(ladder: Ladder) -> None:
    version = BotVersionFactory()
    for i in range(30):
        finish(
            ["random", version, "search", "greedy"],
            [1 + (i + s) % 4 for s in range(4)],
            ladder=ladder,
        )
    names = ["ratings", "ratings", "ratings-b", "ratings-c"]
    start = threading.Barrier(len(names))
    errors: list[BaseException] = []

    def run(name: str) -> None:
        try:
            start.wait()
            deadline = time.monotonic() + FENCE_WAIT
            while time.monotonic() < deadline:
                rating_feed.consume(name, limit=7)
                if feed.checkpoint(name) >= last:
                    break
                time.sleep(0.02)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    # The last position written, not the last the fence lets through now: another suite's
    # open transaction may hold some back, and the threads must wait for them.
    last = Event.objects.filter(event_type=MATCH_FINISHED).aggregate(m=Max("position"))["m"]
    threads = [threading.Thread(target=run, args=(n,)) for n in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert RatingHistory.objects.count() == 120
    assert Rating.objects.get(player=f"v:{version.pk}").games == 30
    assert rating_feed.rebuild(write=False).differences == []


def test_rebuild_gives_exactly_the_stored_ratings(ladder: Ladder) -> None:
    old = BotVersionFactory()
    for i in range(5):
        finish(
            [old, "random", "greedy", "search"], [1 + (i + s) % 4 for s in range(4)], ladder=ladder
        )
    new = BotVersionFactory(bot=old.bot)
    for i in range(4):
        finish(
            [new, "random", "greedy", "search"],
            [1 + (i * 3 + s) % 4 for s in range(4)],
            ladder=ladder,
        )
    finish(["random", "greedy"], [1, 2])  # rated, outside any ladder: its game's pool
    settle(rating_feed.consume, 38)
    # The new version started from the old one's rating, less certain.
    first = RatingHistory.objects.filter(player=f"v:{new.pk}").order_by("position").first()
    old_rating = Rating.objects.get(player=f"v:{old.pk}")
    assert first is not None and first.mu_before == old_rating.mu
    assert first.sigma_before > old_rating.sigma
    assert Rating.objects.filter(pool="brexit:2").count() == 2

    before = stored()
    history = list(
        RatingHistory.objects.order_by("position", "player").values_list(
            "match_id", "player", "mu_after", "sigma_after", "elo_after"
        )
    )
    result = rating_feed.rebuild()
    assert result.differences == []
    assert (result.results, result.ratings, result.history) == (10, len(before), 38)
    assert stored() == before
    assert (
        list(
            RatingHistory.objects.order_by("position", "player").values_list(
                "match_id", "player", "mu_after", "sigma_after", "elo_after"
            )
        )
        == history
    )


def tied(ladder: Ladder) -> list[str]:
    """Zeta and alpha in the order the ladder lists them (next to each other: they are equal)."""
    listed = [r.player for r in competition_selectors.ratings_of(ladder)]
    at = min(listed.index("builtin:zeta"), listed.index("builtin:alpha"))
    return listed[at : at + 2]


def test_bots_first_rated_together_keep_that_order_among_equals_through_a_rebuild(
    ladder: Ladder,
) -> None:
    """Tied in their first match, two new bots have the same rating: the ladder lists them in
    the order the feed rated them (seat order), not by player key, and a rebuild keeps it."""
    finish(["zeta", "alpha", "mid", "beta"], [1, 1, 3, 4], ladder=ladder)
    settle(rating_feed.consume, 4)
    zeta, alpha = (Rating.objects.get(player=f"builtin:{name}") for name in ("zeta", "alpha"))
    assert (zeta.mu, zeta.sigma, zeta.elo, zeta.games) == (
        alpha.mu,
        alpha.sigma,
        alpha.elo,
        alpha.games,
    )
    assert tied(ladder) == ["builtin:zeta", "builtin:alpha"]
    assert rating_feed.rebuild().differences == []
    assert tied(ladder) == ["builtin:zeta", "builtin:alpha"]


def test_rebuild_reports_a_stored_rating_that_the_events_do_not_give(ladder: Ladder) -> None:
    finish(["random", "greedy", "search"], [1, 2, 3], ladder=ladder)
    settle(rating_feed.consume, 3)
    Rating.objects.filter(player="builtin:random").update(mu=99.0)
    diffs = rating_feed.rebuild(write=False).differences
    assert len(diffs) == 1 and "builtin:random" in diffs[0]


def test_the_ratings_command_checks_and_rebuilds(ladder: Ladder) -> None:
    import json
    from io import StringIO

    from django.core.management import CommandError, call_command

    finish(["random", "greedy", "search"], [2, 1, 3], ladder=ladder)
    settle(rating_feed.consume, 3)
    out = StringIO()
    call_command("ratings", "check", stdout=out)
    assert json.loads(out.getvalue())["differences"] == 0
    Rating.objects.filter(player="builtin:greedy").update(games=7)
    with pytest.raises(CommandError, match="1 stored ratings differed"):
        call_command("ratings", "rebuild", stdout=StringIO(), stderr=StringIO())
    assert Rating.objects.get(player="builtin:greedy").games == 1  # replaced by the rebuild


def test_an_older_match_finished_payload_is_upcast_before_it_is_rated(ladder: Ladder) -> None:
    """The consumer reads only the ranks out of a current payload, and whole older ones."""
    from replays import upcasting

    finish(["random", "greedy", "search"], [1, 2, 3], ladder=ladder)

    def reversed_ranks(payload: dict[str, object]) -> dict[str, object]:
        outcome = dict(payload["outcome"])  # type: ignore[call-overload]
        outcome["ranks"] = [4 - r for r in outcome["ranks"]]
        return {**payload, "outcome": outcome}

    upcasting.upcaster(MATCH_FINISHED, from_version=1)(reversed_ranks)
    try:
        settle(rating_feed.consume, 3)
        ranks = dict(RatingHistory.objects.values_list("player", "rank"))
        assert ranks == {"builtin:random": 3, "builtin:greedy": 2, "builtin:search": 1}
        assert rating_feed.rebuild(write=False).differences == []
    finally:
        upcasting.unregister(MATCH_FINISHED, 1)


def test_a_match_that_finished_twice_is_rated_once_by_the_consumer_and_the_rebuild(
    ladder: Ladder,
) -> None:
    match = finish(["random", "greedy", "search"], [1, 2, 3], ladder=ladder)
    finish(["random", "greedy", "search"], [3, 2, 1], ladder=ladder)
    outcome = {"ranks": [3, 1, 2], "scores": [0.0, 0.0, 0.0]}  # a retry's second ending
    # Forged straight into the store: the platform writes one final event (verify reports a
    # second), and this is the guard against rating one that slipped in.
    store.append(
        match.id, [NewEvent(type=MATCH_FINISHED, payload={"outcome": outcome, "seed": 1})], 1
    )
    settle(rating_feed.consume, 6)
    assert RatingHistory.objects.filter(match=match, player="builtin:random").get().rank == 1
    # Read one event at a time, the second ending comes in a batch of its own.
    rebuilt = rating_feed.rebuild(write=False, chunk=1)
    assert rebuilt.results == 2 and rebuilt.differences == []
