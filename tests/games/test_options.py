"""Options a challenger writes are refused with a reason, or the game starts with them.

Every game's ``options`` is its door: whatever passes it must set up and fold (the worker does
exactly that), and whatever is wrong must be a BadOptions, never another exception (a 500 at
the API) or, worse, a match that is accepted and then aborts on the worker. The second outside
review of issue 21 found both in Bra$ilis scenarios (a float in ``wallet_order``, a list where a
card id goes, a superscript digit as a round number).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from games.brasilis.setup import SCENARIO_KEYS
from games.engine.errors import BadOptions
from games.engine.match import replay
from games.engine.registry import GAMES

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-3, 14)
    | st.floats(allow_nan=False, allow_infinity=False, width=16)
    | st.sampled_from(["", "2", "²", "x0", "P_01", "N_01", "lawyer", "colonel", "AG_EU"])
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=10,
)


def starts_or_refuses(game: str, seats: int, options: dict[str, Any]) -> None:
    rules = GAMES[game].rules
    try:
        played = rules.options(seats, options)
    except BadOptions as refused:
        assert str(refused)
        return
    replay(rules, rules.setup(seats, 7, played))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seats=st.integers(3, 6),
    scenario=st.dictionaries(st.sampled_from(SCENARIO_KEYS), JSON, max_size=3),
)
@example(seats=3, scenario={"wallet_order": [1.0, 0, 2]})
@example(seats=3, scenario={"wallet_order": [True, 0, 2]})
@example(seats=3, scenario={"wallet_order": [0, "a", []]})
@example(seats=3, scenario={"piles": [1, [], []]})
@example(seats=3, scenario={"news_deck": [["x"]]})
@example(seats=3, scenario={"hands": [[["x"]], None, None]})
@example(seats=3, scenario={"auction_aids": {"²": ["lawyer", "colonel"]}})
def test_a_brasilis_scenario_starts_or_is_refused_with_a_reason(
    seats: int, scenario: dict[str, Any]
) -> None:
    starts_or_refuses("brasilis", seats, {"scenario": scenario})


@pytest.mark.parametrize("game", sorted(GAMES))
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=st.dictionaries(st.text(max_size=12), JSON, max_size=3), data=st.data())
def test_any_games_options_start_or_are_refused_with_a_reason(
    game: str, options: dict[str, Any], data: st.DataObject
) -> None:
    info = GAMES[game]
    seats = data.draw(st.integers(info.min_seats, info.max_seats), label="seats")
    keys = sorted(info.rules.options(seats, {}))
    if keys:  # one of the game's own options, with any value
        options = {**options, data.draw(st.sampled_from(keys), label="known"): data.draw(JSON)}
    starts_or_refuses(game, seats, options)
