"""A ladder's order: the rule in its pure form, and its SQL form giving the same order and scores."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.factories import BotVersionFactory, RatingFactory
from tournaments.competition import selectors as competition_selectors
from tournaments.competition.models import Ladder
from tournaments.rating import ladder_order, ratings
from tournaments.rating.models import Rating
from tournaments.rating.ratings import Skill

POOL = "brexit:4"


def test_order_is_by_conservative_estimate_among_equally_known_bots() -> None:
    skills = {
        "sure": Skill(mu=30.0, sigma=1.0, games=50),
        "lucky": Skill(mu=33.0, sigma=5.0, games=50),
        "middle": Skill(mu=31.0, sigma=1.0, games=50),
    }
    # The median deviation is 1 (in mu); "lucky" is counted at 1 too: 33 - 3 > 31 - 3.
    assert ladder_order.uncertainty_cap(skills.values()) == pytest.approx(ratings.ELO_PER_MU)
    assert ladder_order.order(skills) == ["lucky", "middle", "sure"]
    skills["shaky"] = Skill(mu=29.0, sigma=5.0, games=50)
    # Now the median is 3: "lucky" 33 - 9 < "middle" 31 - 3.
    assert ladder_order.order(skills) == ["middle", "sure", "lucky", "shaky"]


def test_a_provisional_bot_comes_after_every_established_bot() -> None:
    games = ratings.PROVISIONAL_GAMES
    skills = {
        "established": Skill(mu=20.0, sigma=2.0, games=games),
        "provisional": Skill(mu=40.0, sigma=2.0, games=games - 1),
        "new": Skill(),
    }
    assert ladder_order.order(skills) == ["established", "provisional", "new"]


def test_an_established_newcomer_is_ranked_as_if_as_well_known_as_the_field() -> None:
    """Its deviation, twice the field's after 8 games, is counted at the field's median."""
    field = {f"p{i}": Skill(mu=20.0 + i, sigma=1.0, games=60) for i in range(9)}
    newcomer = Skill(mu=24.6, sigma=2.0, games=ratings.PROVISIONAL_GAMES)
    order = ladder_order.order({**field, "new": newcomer})
    assert order.index("new") == 4  # below p8..p5 (mu 28..25), above p4 (mu 24)
    uncapped = sorted({**field, "new": newcomer}.items(), key=lambda kv: -kv[1].conservative)
    assert [p for p, _ in uncapped].index("new") == 7  # 24.6 - 6 sits below p2's 22 - 3


def test_the_cap_is_every_bots_median_when_none_is_established() -> None:
    skills = [Skill(sigma=2.0), Skill(sigma=4.0), Skill(sigma=9.0)]
    assert ladder_order.uncertainty_cap(skills) == pytest.approx(4.0 * ratings.ELO_PER_MU)
    assert ladder_order.uncertainty_cap([]) == pytest.approx(ratings.SIGMA * ratings.ELO_PER_MU)


def test_exact_ties_keep_the_order_the_bots_were_first_rated_not_their_keys() -> None:
    """A private bot's key ("v:<id>") must not show through its place among equals."""
    same = Skill(mu=26.0, sigma=2.0, games=30)
    assert ladder_order.order({"v:9": same, "v:10": same, "v:1": same}) == ["v:9", "v:10", "v:1"]


# Ratings drawn from a few values each, and players drawn from a few ratings: exact ties in
# every term are common, and in some terms only (the same score from a capped deviation).
skills = st.builds(
    Skill,
    mu=st.sampled_from([20.0, 25.0, 31.25]) | st.floats(10.0, 40.0),
    sigma=st.sampled_from([1.0, 2.0, 8.0]) | st.floats(0.3, 8.4),
    games=st.sampled_from([0, 3, 7, 8, 9, 40]),
)
fields = st.lists(skills, min_size=1, max_size=8).flatmap(
    lambda drawn: st.lists(st.sampled_from(drawn), min_size=1, max_size=24)
)


@pytest.mark.django_db
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(field=fields, data=st.data())
def test_the_sql_and_the_pure_form_give_the_same_order_and_scores(
    field: list[Skill], data: st.DataObject
) -> None:
    """The site lists ladder_order.ranked, the simulation ladder_order.order: the same players in
    the same places, the same scores to the bit (the median as percentile_cont takes it)."""
    Rating.objects.filter(pool=POOL).delete()
    # Player keys in no relation to the order the rows are written (first rated) in.
    keys = data.draw(st.permutations([f"builtin:b{i:02d}" for i in range(len(field))]))
    first_rated = dict(zip(keys, field, strict=True))
    for player, skill in first_rated.items():
        RatingFactory(pool=POOL, player=player, skill=skill)
    rows = list(ladder_order.ranked(POOL))
    assert [r.player for r in rows] == ladder_order.order(first_rated)
    cap = ladder_order.uncertainty_cap(field)
    for row in rows:
        assert row.provisional == ratings.is_provisional(row.games)
        assert row.score == ladder_order.ladder_score(first_rated[row.player], cap)


@pytest.mark.django_db
def test_the_cap_is_the_median_postgres_computes_to_the_bit() -> None:
    """Two deviations whose midpoint (a + b) / 2 and percentile_cont's a + (b - a) / 2 differ."""
    low, high = 30.463331737244353, 197.70161814074723
    assert (low + high) / 2 != low + (high - low) * 0.5
    skills = {
        "builtin:a": Skill(mu=30.0, sigma=low / ratings.ELO_PER_MU, games=20),
        "builtin:b": Skill(mu=20.0, sigma=high / ratings.ELO_PER_MU, games=20),
    }
    for player, skill in skills.items():
        RatingFactory(pool=POOL, player=player, skill=skill)
    cap = ladder_order.uncertainty_cap(skills.values())
    assert (
        cap
        == skills["builtin:a"].deviation
        + (skills["builtin:b"].deviation - skills["builtin:a"].deviation) * 0.5
    )
    scores = {r.player: r.score for r in ladder_order.ranked(POOL)}
    assert scores == {p: ladder_order.ladder_score(s, cap) for p, s in skills.items()}


@pytest.mark.django_db
def test_a_ladders_equal_bots_are_listed_in_the_order_they_were_first_rated() -> None:
    """What the API lists (ladders.ratings_of): a private bot's key never decides its place."""
    ladder = Ladder.objects.create(name="brexit duels", game="brexit", seats=2)
    # The private one is whichever key sorts after the other (keys are strings: "v:99" sorts
    # after "v:100"), so that ordering by key would put it second.
    public, private = sorted(
        (BotVersionFactory(bot__game="brexit") for _ in range(2)), key=lambda v: f"v:{v.pk}"
    )
    private.bot.is_public = False
    private.bot.save(update_fields=["is_public"])
    same = Skill(mu=26.0, sigma=2.0, games=30)
    RatingFactory(ladder=ladder, player=f"v:{private.pk}", skill=same, bot_version=private)
    RatingFactory(ladder=ladder, player=f"v:{public.pk}", skill=same, bot_version=public)
    assert f"v:{public.pk}" < f"v:{private.pk}"
    assert [r.player for r in competition_selectors.ratings_of(ladder)] == [
        f"v:{private.pk}",
        f"v:{public.pk}",
    ]
