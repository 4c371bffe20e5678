"""About how many more games until a rating is settled (tournaments/rating/settling.py)."""

from __future__ import annotations

import statistics

from tournaments.rating import ratings, settling
from tournaments.rating.ratings import PROVISIONAL_GAMES


def test_a_placed_bot_within_the_cap_is_settled_and_a_new_one_needs_its_placement() -> None:
    placed = ratings.Skill(sigma=80.0 / ratings.ELO_PER_MU, games=30)
    assert settling.games_to_settle(placed, seats=4, cap=85.0, typical=85.0) == 0
    early = ratings.Skill(sigma=80.0 / ratings.ELO_PER_MU, games=3)
    assert settling.games_to_settle(early, seats=4, cap=85.0, typical=85.0) == 5


def test_a_cap_no_rating_reaches_is_never() -> None:
    assert settling.games_to_settle(ratings.Skill(), seats=4, cap=1.0, typical=85.0) is None


def test_the_estimate_is_the_games_a_new_bot_then_takes_among_a_settled_field() -> None:
    """A settled field of 4-player games; a new bot joins and is rated against it. The estimate
    made when it joined is close to the games it really takes to reach the field's median
    deviation (the results differ from the estimate's rotation: the deviation barely cares)."""
    field = [ratings.Skill() for _ in range(6)]
    for game in range(120):
        seating = [(game + k) % 6 for k in range(4)]
        ranks = [1 + (game * 3 + k) % 4 for k in range(4)]
        new = ratings.rate([field[i] for i in seating], ranks)
        for i, skill in zip(seating, new, strict=True):
            field[i] = skill
    cap = statistics.median(s.deviation for s in field)
    newcomer = ratings.Skill()
    estimate = settling.games_to_settle(newcomer, seats=4, cap=cap, typical=cap)
    assert estimate is not None and estimate > PROVISIONAL_GAMES
    taken = 0
    while newcomer.games < PROVISIONAL_GAMES or newcomer.deviation > cap:
        opponents = [field[(taken + k) % 6] for k in range(3)]
        ranks = [1 + (taken * 7 + k) % 4 for k in range(4)]  # not the estimate's rotation
        newcomer = ratings.rate([newcomer, *opponents], ranks)[0]
        taken += 1
    assert abs(estimate - taken) <= max(2, taken // 5), (estimate, taken)
