"""The Bra$ilis board is drawn from observations: each flag lands on its own seat."""

from __future__ import annotations

from games.brasilis.view.board import board
from games.engine.match import LocalMatch
from games.engine.registry import get


def test_a_brasilis_politician_shows_passed_only_when_its_own_flag_is_set() -> None:
    rules = get("brasilis").rules
    match = LocalMatch(rules, 3, seed=4)
    labels = ["a", "b", "c"]
    for passed in ([False, False, False], [True, False, False], [False, False, True]):
        match.state.passed = list(passed)
        drawn = board(rules.observe(match.state, None), {}, labels)
        assert [p["passed"] for p in drawn["politicians"]] == passed
