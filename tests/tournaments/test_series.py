"""Series and A/B tests (tournaments/competition/series.py): the deals they queue, within the
owner's allowance, and where an A/B test stops. Matches end as the workers end them: by their
match_finished event (the result trigger writes the rows), appended here."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.test import override_settings

from tests import factories
from tests.factories import UserFactory, outcome_of
from tournaments.competition import selectors, services
from tournaments.competition import series as series_service
from tournaments.competition.models import Series
from tournaments.play import visibility, worker_time
from tournaments.play.models import Match
from tournaments.play.services import Invalid

Outcome = Callable[[Match], tuple[list[int], list[float]]]


def finish(match: Match, ranks: list[int], scores: list[float]) -> None:
    factories.finish(match, outcome_of(ranks, scores))


def players_of(match: Match) -> list[str]:
    return [
        f"v:{s.bot_version_id}" if s.bot_version_id else f"builtin:{s.builtin}"
        for s in match.seats.order_by("number")
    ]


def play_out(series: Series, outcome: Outcome, rounds: int = 100) -> Series:
    """Finish every queued match of the series, then advance it (as the beat tick does), until
    it stops; the owner's active matches never exceed the allowance meanwhile."""
    for _ in range(rounds):
        series.refresh_from_db()
        if series.state != Series.State.RUNNING:
            return series
        queued = list(Match.objects.filter(series=series, status=Match.Status.QUEUED))
        for match in queued:
            finish(match, *outcome(match))
        series_service.advance(series)
    raise AssertionError("the series did not stop")


def twin_outcome(candidate: str, baseline: str, wins: bool) -> Outcome:
    """The tested seat finishes alone first or alone last: the candidate first (``wins``) and
    its twin, the baseline, last, or the other way round."""

    def outcome(match: Match) -> tuple[list[int], list[float]]:
        table = players_of(match)
        seat = table.index(candidate if candidate in table else baseline)
        if (candidate in table) == wins:
            ranks = [2] * len(table)
            ranks[seat] = 1
        else:
            ranks = [1] * len(table)
            ranks[seat] = len(table)
        return ranks, [float(-r) for r in ranks]

    return outcome


def pairs_to_cross(step: float, bound: float) -> int:
    """The pairs all one way after which the LLR, ``step`` a pair, reaches ``bound``."""
    n = 1
    while abs(step * n) < abs(bound):
        n += 1
    return n


AB = {
    "candidate": {"builtin": "greedy"},
    "baseline": {"builtin": "cautious"},
    "field": [{"builtin": "random"}, {"builtin": "bold"}],
    "elo0": 0,
    "elo1": 200,
    "alpha": 0.1,
    "beta": 0.1,
    "max_games": 20,
}


@pytest.fixture
def owner(db: None) -> Any:
    return UserFactory()


@pytest.mark.django_db(transaction=True)
def test_a_plain_series_plays_each_deal_once_per_rotation_and_finishes(owner: Any) -> None:
    players = [{"builtin": "greedy"}, {"builtin": "random"}, {"builtin": "bold"}]
    series = services.create_series(user=owner, game="brexit", players=players, deals=3)
    assert Match.objects.filter(series=series).count() == 3 * 2  # two deals in flight, 3 seats
    series = play_out(series, lambda m: ([1, 2, 3], [3.0, 2.0, 1.0]))
    assert series.state == Series.State.FINISHED
    matches = list(Match.objects.filter(series=series))
    assert len(matches) == 9 and all(not m.rated and m.created_by == owner for m in matches)
    by_deal: dict[Any, list[Match]] = {}
    for match in matches:
        by_deal.setdefault(match.deal, []).append(match)
    assert len(by_deal) == 3
    for deal in by_deal.values():
        assert len({m.seed for m in deal}) == 1
        # each player holds each seat once on the deal
        assert sorted(players_of(m)[0] for m in deal) == [
            "builtin:bold",
            "builtin:greedy",
            "builtin:random",
        ]
    found = selectors.series_results(series)
    assert found["games"] == 9
    assert {p["player"]: p["rank"]["mean"] for p in found["players"]} == {
        "builtin:greedy": 2.0,
        "builtin:random": 2.0,
        "builtin:bold": 2.0,
    }
    first = found["players"][0]
    assert first["games"] == 9 and 0 < first["wins"]["low"] < 1 / 3 < first["wins"]["high"]
    assert all(h["games"] == 9 for h in found["head_to_head"])
    assert [s["games"] for s in found["strengths"]] == [9, 9, 9]
    assert found["test"] is None


@pytest.mark.django_db(transaction=True)
def test_a_deal_stays_hidden_until_each_of_its_rotations_is_over(owner: Any) -> None:
    players = [{"builtin": "greedy"}, {"builtin": "random"}]
    series = services.create_series(user=owner, game="brexit", players=players, deals=1)
    first, second = Match.objects.filter(series=series)
    finish(first, [1, 2], [1.0, 0.0])
    assert not visibility.deal_over(Match.objects.get(pk=first.pk))
    finish(second, [1, 2], [1.0, 0.0])
    assert visibility.deal_over(Match.objects.get(pk=first.pk))


@pytest.mark.django_db(transaction=True)
def test_a_series_keeps_within_the_owners_allowance(owner: Any) -> None:
    players = [{"builtin": "greedy"}, {"builtin": "random"}, {"builtin": "bold"}]
    with override_settings(FAIR_MAX_ACTIVE_MATCHES=4):
        series = services.create_series(user=owner, game="brexit", players=players, deals=3)
        assert Match.objects.filter(series=series).count() == 3  # a second deal would be 6 > 4
        series_service.advance(series)
        assert Match.objects.filter(series=series).count() == 3
        series = play_out(series, lambda m: ([1, 2, 3], [3.0, 2.0, 1.0]))
    assert Match.objects.filter(series=series, status=Match.Status.FINISHED).count() == 9


@pytest.mark.django_db(transaction=True)
def test_a_series_waits_while_its_owners_hour_of_worker_time_is_spent(owner: Any) -> None:
    players = [{"builtin": "greedy"}, {"builtin": "random"}]
    worker_time.charge([f"u:{owner.pk}"], 100.0)  # over 60 s, well under the default 1800
    with override_settings(FAIR_WORKER_SECONDS_PER_HOUR=60.0):
        series = services.create_series(user=owner, game="brexit", players=players, deals=2)
        assert not Match.objects.filter(series=series).exists()
        assert series_service.advance(series) == 0
    assert series_service.advance(series) == 4  # the budget back: both deals start
    assert series_service.advance(series) == 0


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("wins", "verdict"), [(True, "H1"), (False, "H0")])
def test_an_ab_test_stops_at_the_first_bound_and_cancels_what_is_queued(
    owner: Any, wins: bool, verdict: str
) -> None:
    series = services.create_series(user=owner, game="brexit", test=AB)
    series = play_out(series, twin_outcome("builtin:greedy", "builtin:cautious", wins))
    # All one way, no equal pair: each constrained estimate puts no mass on equal pairs, so the
    # LLR moves by log(s1 / s0) a pair above, log((1 - s1) / (1 - s0)) below; the bounds are
    # +-log(0.9 / 0.1). Above: 6 pairs (0.418 each); below: 3 (-0.733 each).
    s1 = 1 / (1 + 10 ** (-200 / 400))
    step = math.log(s1 / 0.5) if wins else math.log((1 - s1) / 0.5)
    decided = pairs_to_cross(step, math.log(9))
    assert decided == (6 if wins else 3)
    assert (series.verdict, series.decided_pairs) == (verdict, decided)
    found = selectors.series_results(series)["test"]
    assert found["pairs"] == decided and found["verdict"] == verdict
    expected = [round(step * n, 4) for n in range(1, decided + 1)]
    assert found["llr"] == pytest.approx(expected, abs=1e-4)
    assert found["upper"] == pytest.approx(math.log(9), abs=1e-4)
    assert (found["elo"]["elo"] is None) and (found["elo"]["low" if wins else "high"] is not None)
    statuses = Counter(Match.objects.filter(series=series).values_list("status", flat=True))
    assert set(statuses) <= {"finished", "aborted"}
    assert statuses["finished"] >= 2 * decided
    # each pair: candidate and baseline in the same seat, the same field around it, one seed
    for deal in {m.deal for m in Match.objects.filter(series=series)}:
        twins = list(Match.objects.filter(deal=deal))
        assert len(twins) == 2 and twins[0].seed == twins[1].seed
        a, b = (players_of(m) for m in twins)
        differ = [i for i in range(3) if a[i] != b[i]]
        assert len(differ) == 1
        assert {a[differ[0]], b[differ[0]]} == {"builtin:greedy", "builtin:cautious"}


@pytest.mark.django_db(transaction=True)
def test_an_undecided_ab_test_stops_at_its_cap(owner: Any) -> None:
    flip = iter(range(1000))
    twins: dict[Any, bool] = {}

    def alternate(match: Match) -> tuple[list[int], list[float]]:
        # each pair goes one way, the next pair the other: the LLR stays near 0
        wins = twins.setdefault(match.deal, next(flip) % 2 == 0)
        return twin_outcome("builtin:greedy", "builtin:cautious", wins)(match)

    series = services.create_series(user=owner, game="brexit", test={**AB, "max_games": 4})
    series = play_out(series, alternate)
    assert (series.verdict, series.decided_pairs) == ("cap", 4)
    assert Match.objects.filter(series=series).count() == 8


@pytest.mark.django_db(transaction=True)
def test_cancelling_a_series_aborts_its_queued_matches(owner: Any) -> None:
    players = [{"builtin": "greedy"}, {"builtin": "random"}]
    series = services.create_series(user=owner, game="brexit", players=players, deals=5)
    series = services.cancel_series(series=series)
    assert series.state == Series.State.CANCELLED
    assert set(Match.objects.filter(series=series).values_list("status", flat=True)) == {"aborted"}
    assert series_service.advance(series) == 0
    with pytest.raises(Invalid):
        services.cancel_series(series=series)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"game": "chess", "players": [{"builtin": "random"}] * 2}, "game"),
        ({"players": [{"builtin": "random"}]}, "players"),
        ({"players": [{"builtin": "random"}, {"builtin": "random"}]}, "players"),
        ({"players": [{"builtin": "nope"}, {"builtin": "random"}]}, "players"),
        ({"players": [{"bot_version": 999999}, {"builtin": "random"}]}, "players"),
        ({"players": [{"human": True}, {"builtin": "random"}]}, "players"),
        ({"players": [{"builtin": "greedy"}, {"builtin": "random"}], "deals": 0}, "deals"),
        (
            {"players": [{"builtin": "greedy"}, {"builtin": "random"}], "options": {"x": 1}},
            "options",
        ),
        ({"test": {**AB, "elo1": -5}}, "test"),
        ({"test": {**AB, "alpha": 0.7, "beta": 0.5}}, "test"),
        ({"test": {**AB, "baseline": {"builtin": "greedy"}}}, "test"),
        ({"test": {**AB, "baseline": {"builtin": "random"}}}, "test"),
        ({"test": {**AB, "max_games": 0}}, "test"),
        ({"test": {k: v for k, v in AB.items() if k != "field"}}, "test"),
        ({"test": {**AB, "field": [{"builtin": "random"}] * 5}}, "test"),
    ],
)
def test_a_series_is_refused_with_a_message_per_field(
    owner: Any, kwargs: dict[str, Any], field: str
) -> None:
    with pytest.raises(Invalid) as refused:
        services.create_series(user=owner, **{"game": "brexit", **kwargs})
    assert list(refused.value.errors) == [field] and refused.value.errors[field][0]
    assert not Series.objects.exists()
