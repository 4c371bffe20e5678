"""One contract test over every game in the registry (OpenSpiel's random simulation test, in spirit).

Random matches over seeds, seat counts and options, with each property checked
along the way: deciding equals replaying the events, dump/load round-trips, the
default action is legal, an illegal action changes nothing, conservation laws
hold after every event, games end, and no seat (nor a spectator) sees anything
of another seat's hidden information, neither in its observation nor in its
view of the events. A game added to the registry gets every check by adding a
profile in tests/games/profiles.py (a game the tests register brings its own).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from games.engine.errors import IllegalAction
from games.engine.events import view
from games.engine.match import LocalMatch, replay
from games.engine.registry import GAMES, GameInfo
from games.engine.rng import step_rng
from games.engine.rules import Rules
from games.engine.types import Action, Event, Seat
from tests.games.profiles import PROFILES, Profile, decision_states, decisions, options_for

NAMES = sorted(GAMES)
S36_SEED = 8
"""3 seats, no options: an Eliminate hits a face-down card early on (the S-36 case that once
leaked the card to every seat; random exploration alone finds it only about 6 runs in 7)."""
MATCH = settings(
    max_examples=12, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate)
)
"""Each example is a whole random match, checked at every step: a few cover a lot. Shrinking a
match takes minutes and says little more than the seed, seats and options of the failing one."""


@pytest.fixture(scope="module", params=NAMES)
def game(request: pytest.FixtureRequest) -> GameInfo:
    return GAMES[request.param]


@pytest.fixture(scope="module")
def profile(game: GameInfo) -> Profile:
    return PROFILES[game.name]


def draw_match(data: st.DataObject, game: GameInfo) -> tuple[int, int, dict[str, Any]]:
    """A seat count, a seed and options for ``game``."""
    return data.draw(matches(game.name), label="match")


def matches(name: str) -> st.SearchStrategy[tuple[int, int, dict[str, Any]]]:
    game = GAMES[name]
    return st.tuples(
        st.integers(game.min_seats, game.max_seats),
        st.integers(0, 2**32 - 1),
        PROFILES[name].options,
    )


def json_copy(value: Any) -> Any:
    """``value`` as it comes back from storage (and a proof that it is plain JSON)."""
    return json.loads(json.dumps(value))


def copy_state(rules: Rules[Any], state: Any) -> Any:
    return rules.load(json_copy(rules.dump(state)))


def test_every_registered_game_has_a_profile() -> None:
    assert sorted(PROFILES) == NAMES
    for name in NAMES:
        assert GAMES[name].rules.name == name


# --- playing: replay, dump/load, defaults, illegal actions, conservation, the end -------------


def rejects_without_change(rules: Rules[Any], state: Any, seat: Seat, action: Any) -> str:
    """``action`` is refused by check and decide alike, and the state is untouched."""
    before = rules.dump(state)
    with pytest.raises(IllegalAction) as checked:
        rules.check(state, seat, action)
    with pytest.raises(IllegalAction) as decided:
        rules.decide(state, seat, action, random.Random(0))
    assert str(checked.value) and str(decided.value) == str(checked.value)
    assert rules.dump(state) == before, f"refusing {action!r} changed the state"
    return str(checked.value)


@MATCH
@given(data=st.data())
def test_random_matches_keep_the_contract(game: GameInfo, data: st.DataObject) -> None:
    rules, profile = game.rules, PROFILES[game.name]
    seats, seed, options = draw_match(data, game)
    check_every = data.draw(st.integers(3, 12), label="check every")
    m: LocalMatch[Any] | None = None
    for step, (m, seat, kind) in enumerate(decisions(game, seats, seed, options)):
        state = m.state
        assert kind in profile.shapes, f"decision kind {kind!r} has no declared action shape"
        assert rules.legal(state, seat)["kind"] == kind
        default = rules.default_action(state, seat)
        rules.check(state, seat, default)  # the default is always legal
        if step % check_every:
            continue
        legal = rules.legal(state, seat)["actions"] or []
        for action in legal[:20]:
            rules.check(state, seat, action)
        others = [s for s in range(seats) if s not in {p["seat"] for p in rules.pending(state)}]
        for other in others[:1]:
            assert rules.legal(state, other)["kind"] == "none"
            rejects_without_change(rules, state, other, default)
        for junk in ({}, {"nothing": True}, [default], {**default, "extra": 1}):
            rejects_without_change(rules, state, seat, junk)
        assert rules.load(json_copy(rules.dump(state))) == state
    assert m is not None
    # The game ended, with a result for every seat.
    assert rules.pending(m.state) == []
    outcome = rules.outcome(m.state)
    assert outcome is not None
    assert len(outcome["scores"]) == len(outcome["ranks"]) == seats
    assert min(outcome["ranks"]) == 1 and max(outcome["ranks"]) <= seats
    # Folding the stored stream, one event at a time, keeps every invariant and gives the same state.
    stored = json_copy(m.events)
    opening = len(rules.setup(seats, seed, options_for(game.name, options, seats)))
    folded = rules.new_state()
    for i, ev in enumerate(stored):
        rules.fold(folded, ev)
        if i + 1 >= opening:
            profile.invariants(folded)
    assert folded == m.state
    assert rules.load(json_copy(rules.dump(m.state))) == m.state
    assert rules.outcome(replay(rules, stored)) == outcome


@settings(max_examples=6, deadline=None, phases=MATCH.phases)
@given(data=st.data())
def test_a_match_ends_when_half_the_table_plays_only_defaults(
    game: GameInfo, data: st.DataObject
) -> None:
    """Faulty and disqualified bots play the default action: the match must still end."""
    rules, profile = game.rules, PROFILES[game.name]
    seats, seed, options = draw_match(data, game)
    m = LocalMatch(rules, seats, seed, options_for(game.name, options, seats))
    rng = random.Random(seed)
    for _ in range(20_000):
        pending = m.pending()
        if not pending:
            break
        for p in pending:
            seat = p["seat"]
            if seat % 2:
                m.play(seat, rules.default_action(m.state, seat))
            else:
                m.play(seat, profile.act(m.state, seat, rng))
    assert m.pending() == [] and m.outcome() is not None


@settings(max_examples=5, deadline=None, phases=MATCH.phases)
@given(data=st.data())
def test_the_same_seed_and_actions_give_the_same_events(
    game: GameInfo, data: st.DataObject
) -> None:
    seats, seed, options = draw_match(data, game)
    runs = []
    for _ in range(2):
        played = [m for m, _seat, _kind in decisions(game, seats, seed, options)]
        runs.append(played[-1].events)
    assert runs[0] == runs[1]


def test_every_decision_kind_occurs(game: GameInfo, profile: Profile) -> None:
    """Random matches reach every declared decision kind (so the tests here cover them all)."""
    found = decision_states(game.name)
    assert sorted(found) == sorted(profile.shapes)


# --- hidden information -------------------------------------------------------------------


def strings(value: Any) -> set[str]:
    if type(value) is str:
        return {value}
    if type(value) is list:
        return set().union(*map(strings, value)) if value else set()
    if type(value) is dict:
        return set().union(*map(strings, value.values())) if value else set()
    return set()


def rename(value: Any, names: dict[str, str]) -> Any:
    """``value`` with every string in ``names`` replaced (card ids wherever they are)."""
    if type(value) is str:
        return names.get(value, value)
    if type(value) is list:
        return [rename(v, names) for v in value]
    if type(value) is dict:
        return {k: rename(v, names) for k, v in value.items()}
    return value


def other_world(
    rules: Rules[Any],
    profile: Profile,
    state: Any,
    viewer: Seat | None,
    action: Action,
    rng: random.Random,
    *,
    recall: bool,
) -> tuple[Any, dict[str, str]]:
    """A state ``viewer`` cannot tell from ``state``: everything it cannot see is swapped around.

    Cards are renamed consistently across the whole state, within their class (a card in
    another hand for one in the deck, a face-down card for any other unseen influence card,
    an agenda for another, the unknown country deck reordered), except the cards ``action``
    names, so that it stays the same move. The game's touch-up recomputes what derives from
    a card and changes other hidden facts (sealed bids). Returns the state and the renaming.
    """
    named = strings(action)
    renamed: dict[str, str] = {}
    for _cls, ids in profile.hidden(state, viewer, recall):
        free = [card for card in dict.fromkeys(ids) if card not in named]
        renamed.update(zip(free, rng.sample(free, len(free)), strict=True))
    renamed = {a: b for a, b in renamed.items() if a != b}
    other = rules.load(rename(rules.dump(state), renamed))
    profile.touch_up(other, viewer, renamed, rng)
    return other, renamed


def hidden_ids(profile: Profile, state: Any, viewer: Seat | None) -> set[str]:
    return {card for _cls, ids in profile.hidden(state, viewer, True) for card in ids}


def hidden_steps(
    game: GameInfo, match: tuple[int, int, dict[str, Any]]
) -> Iterator[tuple[LocalMatch[Any], Seat, list[Seat | None], random.Random]]:
    """Steps of a random match at which to compare worlds: (match, seat to act, viewers, rng)."""
    seats, seed, options = match
    rng = random.Random(seed)
    everyone: list[Seat | None] = [*range(seats), None]
    for step, (m, seat, _kind) in enumerate(decisions(game, seats, seed, options)):
        # Every step, from one viewer's side (all of them now and then): a leak may take a
        # rare move (an Eliminate on a face-down card), and there are hundreds of steps.
        yield m, seat, everyone if step % 8 == 0 else [rng.choice(everyone)], rng


@MATCH
@given(data=st.data())
def test_no_observation_shows_another_seats_hidden_information(
    game: GameInfo, data: st.DataObject
) -> None:
    rules, profile = game.rules, PROFILES[game.name]
    changed = 0
    match = draw_match(data, game)
    for m, _seat, viewers, rng in hidden_steps(game, match):
        state = m.state
        for viewer in viewers:
            if match[1] >= 10**6:  # a short seed's digits are everywhere
                assert str(match[1]) not in json.dumps(rules.observe(state, viewer)), "the seed"
            other, renamed = other_world(rules, profile, state, viewer, {}, rng, recall=False)
            changed += bool(renamed)
            assert rules.observe(other, viewer) == rules.observe(state, viewer), (
                f"seat {viewer}'s observation changed with what it cannot see ({len(renamed)} cards swapped)"
            )
    assert changed, "no hidden information was ever swapped: the test checked nothing"


def first_leak(
    profile: Profile, viewer: Seat | None, ours: list[Event], theirs: list[Event]
) -> tuple[str | None, bool]:
    """The first event ``viewer`` sees differently in the two worlds that no rule reveals.

    Returns (the leaking event's description or None, whether the comparison reached the end
    without a legitimate reveal, after which the worlds may differ in what ``viewer`` sees).
    """
    for i in range(max(len(ours), len(theirs))):
        if i >= len(ours) or i >= len(theirs):
            return f"event {i}: one world has more events than the other", False
        mine = view(ours[i], viewer)
        other = view(theirs[i], viewer)
        if mine != other:
            if profile.reveals(ours[i], viewer):
                return None, False
            return (
                f"event {i} ({ours[i]['type']}) seen by {viewer}: {mine['payload']} != "
                f"{other['payload']}",
                False,
            )
    return None, True


def check_event_views(game: GameInfo, match: tuple[int, int, dict[str, Any]]) -> None:
    """Each step is played in the real world and, for some viewers, in a world that differs only
    in what that viewer cannot see: the viewer must see the same events (up to a rule's reveal)
    and the same observation after. And no event shows a viewer a card that was hidden from it
    before the step and still is once the event is folded."""
    rules, profile = game.rules, PROFILES[game.name]
    changed = 0
    for m, seat, viewers, rng in hidden_steps(game, match):
        state = m.state
        action = profile.act(copy_state(rules, state), seat, random.Random(m.version))
        ours_state = copy_state(rules, state)
        ours = rules.decide(ours_state, seat, action, step_rng(m.seed, m.version))
        over = not rules.pending(ours_state)
        for viewer in viewers:
            if not over:
                no_event_shows_hidden_cards(rules, profile, state, ours, viewer)
            other, renamed = other_world(rules, profile, state, viewer, action, rng, recall=True)
            try:
                rules.check(other, seat, action)
            except IllegalAction:
                continue  # the swap made the move impossible there: not comparable
            changed += bool(renamed)
            theirs = rules.decide(other, seat, action, step_rng(m.seed + 1, m.version))
            leak, whole = first_leak(profile, viewer, ours, theirs)
            assert leak is None, leak
            if whole:
                assert rules.observe(ours_state, viewer) == rules.observe(other, viewer), (
                    f"after {action!r}, seat {viewer}'s observation shows what it cannot see"
                )
    assert changed, "no hidden information was ever swapped: the test checked nothing"


def no_event_shows_hidden_cards(
    rules: Rules[Any], profile: Profile, before: Any, events: list[Event], viewer: Seat | None
) -> None:
    unseen = hidden_ids(profile, before, viewer)
    state = copy_state(rules, before)
    for ev in events:
        rules.fold(state, ev)
        shown = strings(view(ev, viewer)["payload"]) & unseen & hidden_ids(profile, state, viewer)
        assert not shown, f"{ev['type']} shows seat {viewer} the hidden card(s) {sorted(shown)}"


@MATCH
@given(data=st.data())
def test_no_event_view_shows_another_seats_hidden_information(
    game: GameInfo, data: st.DataObject
) -> None:
    check_event_views(game, draw_match(data, game))


def test_an_eliminate_on_a_face_down_card_shows_nobody_the_card() -> None:
    check_event_views(GAMES["brasilis"], (3, S36_SEED, {}))


@pytest.mark.parametrize("name", NAMES)
def test_observe_refuses_a_seat_outside_the_table(name: str) -> None:
    rules, seats = GAMES[name].rules, GAMES[name].min_seats
    state = replay(rules, rules.setup(seats, 1, None))
    for bad in (-1, seats, seats + 1, True):
        with pytest.raises(ValueError):
            rules.observe(state, bad)
