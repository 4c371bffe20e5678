"""Arbitrary JSON thrown at every decision kind of every game: only a clean rejection comes back.

A bot's action is whatever JSON it sends. For each decision kind (reached by
random play, see tests/games/profiles.py) an action is either accepted, and
then applies and replays like any other, or refused by ``check`` and ``decide``
alike with :class:`IllegalAction` and the state unchanged. Anything else (a
TypeError inside ``decide``, a bool stored as a seat) would let a bot break
its match. The actions are random JSON, and near misses of legal actions:
the right keys with a wrong type, booleans for integers, floats, huge
integers, nested junk, a key too many or too few.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine.errors import IllegalAction
from games.engine.match import replay
from games.engine.registry import GAMES
from games.engine.rules import Rules
from games.engine.types import Seat
from tests.games.profiles import PROFILES, decision_states

KINDS = [(game, kind) for game in sorted(GAMES) for kind in PROFILES[game].shapes]
FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=2**53, max_value=2**200),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=16,
)
"""Any JSON value json.loads can produce (NaN and Infinity included: Python's parser takes them)."""

wrong_types = st.one_of(
    st.sampled_from(
        [True, False, None, 0.0, 1.0, -1, 2**64, -(2**64), 10**40, "", "0", [], {}, [[]]]
    ),
    st.floats(allow_nan=True, allow_infinity=True),
    json_values,
)
"""What a buggy or hostile bot puts where a seat, a card id or a list goes."""


@pytest.fixture(scope="module", params=KINDS, ids=[f"{g}-{k}" for g, k in KINDS])
def decision(request: pytest.FixtureRequest) -> tuple[Rules[Any], str, list[tuple[Any, Seat]]]:
    """(rules, kind, [(dumped state, pending seat), ...]) for one decision kind of one game."""
    game, kind = request.param
    states = decision_states(game)[kind]
    assert states, f"random play never reached a {kind} decision of {game}"
    return GAMES[game].rules, game, states


def bases(rules: Rules[Any], game: str, state: Any, seat: Seat) -> list[Any]:
    """Legal actions to mutate: the enumerated ones, the default and the player's own moves."""
    found = list((rules.legal(state, seat)["actions"] or [])[:12])
    found.append(rules.default_action(state, seat))
    for i in range(3):
        found.append(PROFILES[game].act(rules.load(rules.dump(state)), seat, random.Random(i)))
    return found


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value: the root, each object value, each list item."""
    found = [prefix]
    if type(value) is dict:
        for k, v in value.items():
            found += paths(v, (*prefix, k))
    elif type(value) is list:
        for i, v in enumerate(value):
            found += paths(v, (*prefix, i))
    return found


def get(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    out = copy.copy(value)
    out[path[0]] = replace(value[path[0]], path[1:], new)
    return out


@st.composite
def near_misses(draw: st.DrawFn, base: Any) -> Any:
    """``base`` with one thing wrong: a value's type, a key added or removed, a wrapping."""
    where = draw(st.sampled_from(paths(base)), label="where")
    here = get(base, where)
    how = draw(st.sampled_from(["type", "twin", "add key", "drop key", "wrap"]), label="how")
    if how == "type":
        return replace(base, where, draw(wrong_types, label="junk"))
    if how == "twin":  # the look-alike of the right value: true for 1, 1.0 for 1, "1" for 1
        twins = {bool: int, int: float, str: list, float: str, list: dict, dict: list}
        kind = twins.get(type(here), str)
        twin: Any = kind() if kind in (list, dict) else kind(1 if here is None else here)
        if type(here) is bool:
            twin = int(here)
        elif type(here) is int:
            twin = draw(st.sampled_from([float(here), bool(here % 2), str(here), [here]]))
        elif type(here) is str:
            twin = draw(st.sampled_from([[here], {"id": here}, here.encode().hex(), None]))
        return replace(base, where, twin)
    if how == "add key" and type(here) is dict:
        key = draw(st.sampled_from(["extra", "seat", "card", "", *here]) | st.text(max_size=6))
        return replace(base, where, {**here, key: draw(json_values | wrong_types)})
    if how == "drop key" and type(here) is dict and here:
        key = draw(st.sampled_from(sorted(here)))
        return replace(base, where, {k: v for k, v in here.items() if k != key})
    return replace(base, where, draw(st.sampled_from([[here], {"action": here}, json.dumps(here)])))


def canonical(action: Any) -> str:
    return json.dumps(action, sort_keys=True)


def only_clean_rejection(rules: Rules[Any], dumped: Any, seat: Seat, action: Any) -> None:
    """Either ``action`` applies cleanly, or check and decide refuse it alike, changing nothing."""
    state = rules.load(copy.deepcopy(dumped))
    before = rules.dump(state)
    rng = random.Random(0)
    try:
        rules.check(state, seat, action)
    except IllegalAction as refused:
        reason = str(refused)
        assert reason, "a rejection must say why"
        assert rules.dump(state) == before, "check changed the state"
        with pytest.raises(IllegalAction) as again:
            rules.decide(state, seat, action, rng)
        assert str(again.value) == reason
        assert rules.dump(state) == before, "a refused decide changed the state"
        return
    legal = rules.legal(state, seat)
    if legal["space"] is None and legal["actions"] is not None:
        # Compared as JSON text, where true is not 1 and 1.0 is not 1.
        assert canonical(action) in {canonical(a) for a in legal["actions"]}, (
            f"accepted {action!r}, which is none of the legal actions"
        )
    events = rules.decide(state, seat, action, rng)
    assert json.loads(json.dumps(events, allow_nan=False)) == events, "events must be plain JSON"
    assert replay(rules, events, rules.load(before)) == state


@FUZZ
@given(data=st.data())
def test_arbitrary_json_is_refused_cleanly(
    decision: tuple[Rules[Any], str, list[tuple[Any, Seat]]], data: st.DataObject
) -> None:
    rules, _game, states = decision
    dumped, seat = data.draw(st.sampled_from(states), label="state")
    action = data.draw(json_values | st.dictionaries(st.text(max_size=10), json_values), "action")
    only_clean_rejection(rules, dumped, seat, action)


@FUZZ
@given(data=st.data())
def test_near_misses_of_legal_actions_are_refused_cleanly(
    decision: tuple[Rules[Any], str, list[tuple[Any, Seat]]], data: st.DataObject
) -> None:
    rules, game, states = decision
    dumped, seat = data.draw(st.sampled_from(states), label="state")
    options = bases(rules, game, rules.load(copy.deepcopy(dumped)), seat)
    base = data.draw(st.sampled_from(options), label="legal action")
    action = data.draw(near_misses(base), label="near miss")
    only_clean_rejection(rules, dumped, seat, action)


@FUZZ
@given(data=st.data())
def test_the_fast_shape_check_agrees_with_the_described_one(
    decision: tuple[Rules[Any], str, list[tuple[Any, Seat]]], data: st.DataObject
) -> None:
    """``Shape.accepts`` (the compiled fast path) is true exactly when ``problem`` finds nothing."""
    rules, game, states = decision
    dumped, seat = data.draw(st.sampled_from(states), label="state")
    kind = rules.pending(rules.load(copy.deepcopy(dumped)))[0]["kind"]
    shape = PROFILES[game].shapes[kind]
    options = bases(rules, game, rules.load(copy.deepcopy(dumped)), seat)
    base = data.draw(st.sampled_from(options), label="legal action")
    action = data.draw(st.just(base) | near_misses(base) | json_values, label="action")
    assert shape.accepts(action) == (shape.problem(action, "") is None)


@pytest.mark.parametrize(
    ("game", "kind", "action", "reason"),
    [
        ("brasilis", "destination", {"give_to": True}, '"give_to" must be an integer, not true'),
        ("brasilis", "destination", {"give_to": 1.0}, '"give_to" must be an integer, not 1.0'),
        ("brasilis", "trade_reply", {"accept": True, "cards": [["P_01"]]}, '"cards[0]" must be'),
        ("brasilis", "dispute", {"pass": True, "play": "P_01"}, "must be one of"),
        ("brasilis", "bid", {"bid": 100.0}, '"bid" must be an integer, not 100.0'),
        (
            "brexit",
            "placement",
            {"place": [{"card": "NEG_01", "slot": True}]},
            "must be an integer",
        ),
        ("brexit", "effect", {"effect": "none", "extra": 1}, "must be one of"),
        # Past 64 bits, the event store could not keep the action's event (issue 21).
        ("brasilis", "bid", {"bid": 2**63}, '"bid" must fit in 64 bits'),
        ("brasilis", "destination", {"give_to": -(2**63) - 1}, "must fit in 64 bits"),
        (
            "brexit",
            "placement",
            {"place": [{"card": "NEG_01", "slot": 2**70}]},
            "must fit in 64 bits",
        ),
    ],
)
def test_the_reported_malformed_actions_are_refused_with_the_reason(
    game: str, kind: str, action: Any, reason: str
) -> None:
    rules = GAMES[game].rules
    dumped, seat = decision_states(game)[kind][0]
    state = rules.load(copy.deepcopy(dumped))
    with pytest.raises(IllegalAction, match="malformed") as refused:
        rules.decide(state, seat, action, random.Random(0))
    assert reason in str(refused.value)
    assert rules.dump(state) == dumped
