"""Hypothesis properties over seeds, 3..6 politicians, variants and random legal play."""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from games.brasilis.bots.random_legal import act
from games.brasilis.cards import EXTRA_VOTE_IDS, NEWS_IDS, POWER_IDS, TOTAL_MONEY
from games.brasilis.rules import RULES
from games.brasilis.state import State
from games.engine.errors import IllegalAction
from games.engine.match import LocalMatch, replay
from games.engine.rng import step_rng

options = st.fixed_dictionaries(
    {},
    optional={
        "less_strategy": st.booleans(),
        "media_control": st.booleans(),
        "trading": st.booleans(),
        "more_your_way": st.fixed_dictionaries(
            {}, optional={"rounds": st.integers(1, 4), "hand_size": st.integers(2, 7)}
        ),
    },
)
games = st.tuples(st.integers(3, 6), st.integers(0, 10**6), options)


def _zones(s: State) -> tuple[Counter[str], Counter[str], Counter[str]]:
    power: Counter[str] = Counter(s.power_deck + s.power_discard + s.spent)
    for h in s.hands:
        power.update(h)
    for stack in s.stacks:
        for e in stack:
            if e["card"] is not None:
                power[e["card"]] += 1
            power.update(e["mult"])
    everything: Counter[str] = Counter(
        s.news_deck + s.pool + s.offered + s.news_discard + s.removed + s.extra_votes
    )
    if s.news:
        everything[s.news] += 1
    for pile in s.piles:
        everything.update(pile)
    news = Counter({c: k for c, k in everything.items() if not c.startswith("EV")})
    extra = Counter({c: k for c, k in everything.items() if c.startswith("EV")})
    return power, news, extra


def check_invariants(s: State) -> None:
    assert s.bank + sum(s.money) == TOTAL_MONEY
    assert min(s.money) >= 0 and s.bank >= 0
    power, news, extra = _zones(s)
    assert power == Counter(POWER_IDS)
    assert news == Counter(NEWS_IDS)
    assert extra == Counter(EXTRA_VOTE_IDS)


def trader(state: State, seat: int, rng: random.Random) -> dict:
    """The random player, plus occasional trade proposals and acceptances."""
    if (
        state.phase == "dispute"
        and state.options.get("trading")
        and not state.traded
        and not state.passed[seat]
    ):
        others = [t for t in range(state.n) if t != seat and not state.passed[t]]
        if others and state.hands[seat] and rng.random() < 0.2:
            return {
                "propose": {
                    "to": rng.choice(others),
                    "cards": [state.hands[seat][0]],
                    "ask_money": 0,
                }
            }
    if state.phase == "trade_reply":
        return {"accept": rng.random() < 0.5, "cards": []}
    return act(state, seat, rng)


@settings(max_examples=40, deadline=None)
@given(games)
def test_games_end_conserve_everything_and_replay(game):
    seats, seed, opts = game
    m = LocalMatch(RULES, seats, seed, opts)
    rng = random.Random(seed)
    live = replay(RULES, [])
    for i, ev in enumerate(m.events):
        RULES.fold(live, ev)
        if i > 3 and live.news_deck:  # once both decks exist
            check_invariants(live)
    for _ in range(5000):
        pend = RULES.pending(m.state)
        if not pend:
            break
        for p in pend:
            new = m.play(p["seat"], trader(m.state, p["seat"], rng))
            for ev in new:
                RULES.fold(live, ev)
                check_invariants(live)
    assert not RULES.pending(m.state)
    outcome = RULES.outcome(m.state)
    assert outcome is not None and sorted(outcome["ranks"]) == list(range(1, seats + 1))
    stored = json.loads(json.dumps(m.events))
    assert replay(RULES, stored) == m.state == live
    assert RULES.load(json.loads(json.dumps(RULES.dump(m.state)))) == m.state


def _hidden_variant(state: State, seat: int, rng: random.Random) -> State:
    """The same position with everything ``seat`` may not know changed."""
    other = RULES.load(RULES.dump(state))
    others = [s for s in range(other.n) if s != seat]
    # Swap hand cards of other seats with deck cards.
    for s in others:
        for i, _ in enumerate(other.hands[s]):
            if other.power_deck:
                j = rng.randrange(len(other.power_deck))
                other.hands[s][i], other.power_deck[j] = other.power_deck[j], other.hands[s][i]
    rng.shuffle(other.power_deck)
    rng.shuffle(other.news_deck)
    # Other seats' secret piles: swap news with the deck.
    for s in others:
        for i, c in enumerate(other.piles[s]):
            if c in NEWS_IDS and other.news_deck:
                other.piles[s][i], other.news_deck[0] = other.news_deck[0], other.piles[s][i]
    # Face-down values played by others, and their sealed bids.
    for stack in other.stacks:
        for e in stack:
            if e["down"] and e["by"] != seat:
                e["value"] = 5 - e["value"] + 1
    other.bids = [b if s == seat or b is None else (b + 100) for s, b in enumerate(other.bids)]
    if other.trade is not None and seat not in (other.trade["from"], other.trade["to"]):
        other.trade = {**other.trade, "cards": ["P_01"] * len(other.trade["cards"])}
    return other


@settings(max_examples=30, deadline=None)
@given(games, st.integers(0, 400))
def test_observation_hides_other_seats_secrets(game, steps):
    seats, seed, opts = game
    opts = {**opts, "trading": False}
    m = LocalMatch(RULES, seats, seed, {**opts})
    rng = random.Random(seed)
    for _ in range(steps):
        pend = RULES.pending(m.state)
        if not pend:
            break
        p = pend[0]
        m.play(p["seat"], act(m.state, p["seat"], rng))
    if m.state.phase == "over":
        return
    for seat in range(seats):
        changed = _hidden_variant(m.state, seat, random.Random(steps))
        assert RULES.observe(m.state, seat) == RULES.observe(changed, seat)
    text = json.dumps(RULES.observe(m.state, None))
    assert "scenario" not in text and str(seed) not in text[:0]


bad_actions = st.one_of(
    st.fixed_dictionaries({"play": st.sampled_from(POWER_IDS), "target": st.integers(-1, 7)}),
    st.fixed_dictionaries(
        {
            "play": st.sampled_from(POWER_IDS),
            "target": st.integers(-1, 7),
            "destination": st.integers(-1, 7),
        }
    ),
    st.fixed_dictionaries(
        {"aid": st.sampled_from(["colonel", "palanque", "lawyer", "marketeer", "x"])}
    ),
    st.fixed_dictionaries({"bid": st.integers(-200, 7000)}),
    st.fixed_dictionaries({"give_to": st.integers(-1, 7)}),
    st.fixed_dictionaries({"lawyer": st.sampled_from([True, False, 1])}),
    st.fixed_dictionaries({"choose_aid": st.text(max_size=10)}),
    st.just({"pass": True}),
    st.just({}),
)


@settings(max_examples=60, deadline=None)
@given(games, st.integers(0, 300), bad_actions, st.integers(0, 5))
def test_illegal_actions_change_nothing(game, steps, action, seat_pick):
    seats, seed, opts = game
    m = LocalMatch(RULES, seats, seed, opts)
    rng = random.Random(seed)
    for _ in range(steps):
        pend = RULES.pending(m.state)
        if not pend:
            break
        m.play(pend[0]["seat"], act(m.state, pend[0]["seat"], rng))
    seat = seat_pick % seats
    before = RULES.dump(m.state)
    try:
        RULES.check(m.state, seat, action)
    except IllegalAction as err:
        assert str(err)
        try:
            RULES.decide(m.state, seat, action, step_rng(seed, m.version))
        except IllegalAction as again:
            assert str(again) == str(err)
        else:
            raise AssertionError("decide accepted what check refused")
        assert RULES.dump(m.state) == before
    else:
        m.play(seat, action)  # legal: it must apply cleanly and replay
        assert replay(RULES, json.loads(json.dumps(m.events))) == m.state
