"""Properties over random seeds, 2-5 players and random legal play (hypothesis)."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from games.brexit.bots.random_legal import act
from games.brexit.rules import RULES
from games.brexit.state import State
from games.engine.errors import IllegalAction
from games.engine.match import LocalMatch, replay
from games.engine.types import Action
from tests.games.brexit.scenario import assert_conserved, assert_replays

seeds = st.integers(min_value=0, max_value=2**32)
seat_counts = st.integers(min_value=2, max_value=5)
GAME = settings(max_examples=40, deadline=None)


def _steps(m: LocalMatch[State], rng: random.Random, limit: int = 5000) -> Any:
    """Yield before each decision of a random game played to the end."""
    for _ in range(limit):
        pending = m.pending()
        if not pending:
            return
        seat = pending[0]["seat"]
        yield seat
        m.play(seat, act(m.state, seat, rng))
    raise AssertionError("game did not end")


@GAME
@given(seed=seeds, seats=seat_counts)
def test_every_game_ends_conserving_cards_and_replaying(seed: int, seats: int) -> None:
    m = LocalMatch(RULES, seats, seed=seed)
    for _ in _steps(m, random.Random(seed)):
        pass
    assert RULES.outcome(m.state) is not None
    assert max(len(d) for d in m.state.deals) >= 6
    # Conservation after EVERY event, on a fresh replay of the stored (JSON) stream.
    state = RULES.new_state()
    dealt = False  # conservation holds from the moment both decks exist
    for ev in json.loads(json.dumps(m.events)):
        RULES.fold(state, ev)
        dealt = dealt or (ev["type"] == "deck_shuffled" and ev["payload"]["deck"] == "negotiation")
        if dealt:
            assert_conserved(state)
    assert state == m.state
    assert_replays(m)


@GAME
@given(seed=seeds, seats=seat_counts)
def test_replay_reproduces_the_outcome(seed: int, seats: int) -> None:
    m = LocalMatch(RULES, seats, seed=seed)
    outcome = m.play_out([act] * seats, random.Random(seed))
    assert RULES.outcome(replay(RULES, json.loads(json.dumps(m.events)))) == outcome
    # And the same seed and actions give the same events.
    again = LocalMatch(RULES, seats, seed=seed)
    again.play_out([act] * seats, random.Random(seed))
    assert again.events == m.events


def _swap_hidden(state: State, viewer: int, rng: random.Random) -> State:
    """Another seat's hand cards and agenda swapped with cards ``viewer`` cannot see."""
    other = RULES.load(RULES.dump(state))
    for p in range(other.seats):
        if p == viewer:
            continue
        hand, deck = other.hands[p], other.negotiation_deck
        for i in range(min(len(hand), len(deck))):
            j = rng.randrange(len(deck))
            hand[i], deck[j] = deck[j], hand[i]
        agenda = other.agendas[p]
        if other.agenda_deck and agenda is not None:
            k = rng.randrange(len(other.agenda_deck))
            other.agendas[p], other.agenda_deck[k] = other.agenda_deck[k], agenda
        if not other.flipped and deck:
            # Face-down cards are hidden too (B-6) until the flip.
            placed = other.placed_cards[p]
            for i in range(len(placed)):
                j = rng.randrange(len(deck))
                placed[i], deck[j] = deck[j], placed[i]
    rng.shuffle(other.negotiation_deck)
    # The unknown part of the country deck may be in any order.
    known = other.known_top
    hidden = other.country_deck[: len(other.country_deck) - known]
    rng.shuffle(hidden)
    other.country_deck[: len(hidden)] = hidden
    return other


@GAME
@given(seed=seeds, seats=seat_counts)
def test_observation_ignores_other_seats_hidden_cards(seed: int, seats: int) -> None:
    m = LocalMatch(RULES, seats, seed=seed)
    rng = random.Random(seed)
    for i, _ in enumerate(_steps(m, random.Random(seed))):
        if i % 3:
            continue
        for viewer in range(seats):
            before = RULES.observe(m.state, viewer)
            swapped = _swap_hidden(m.state, viewer, rng)
            assert swapped != m.state or seats == 2  # something hidden really changed
            assert RULES.observe(swapped, viewer) == before
        spectator = RULES.observe(m.state, None)
        assert spectator["hand"] is None and spectator["agenda"] is None
        assert RULES.observe(_swap_hidden(m.state, -1, rng), None) == spectator


def test_observation_hides_face_down_cards_of_others() -> None:
    m = LocalMatch(RULES, 3, seed=5)
    seat = m.pending()[0]["seat"]
    card = m.state.hands[seat][0]
    m.play(seat, {"place": [{"card": card, "slot": 0}]})
    for viewer in (None, *(s for s in range(3) if s != seat)):
        text = json.dumps(RULES.observe(m.state, viewer))
        assert f'"{card}"' not in text or card in (
            m.state.hands[viewer] if viewer is not None else []
        )


def test_observation_never_contains_seed_deck_order_or_scenario() -> None:
    seed = 987654321
    options = {"negotiation_deck": ["NEG_39", "NEG_38"], "start_seat": 1}
    m = LocalMatch(RULES, 4, seed=seed, options=options)
    rng = random.Random(0)
    for _ in _steps(m, rng):
        for viewer in (None, 0, 1, 2, 3):
            obs = RULES.observe(m.state, viewer)
            text = json.dumps(obs)
            assert str(seed) not in text
            assert "options" not in obs and "negotiation_deck" not in text
            deck = m.state.country_deck
            hidden = deck[: len(deck) - m.state.known_top]
            if len(hidden) >= 3:
                assert json.dumps(hidden[-3:][::-1])[1:-1] not in text
            assert obs["deck_sizes"]["negotiation"] == len(m.state.negotiation_deck)


def _illegal_actions(state: State, seat: int) -> list[Action]:
    hand = state.hands[seat]
    n = len(state.slots)
    outside = next(c for c in ["NEG_01", "NEG_02", "BLOCK_9", "TAKE_5"] if c not in hand)
    bad: list[Action] = [
        {"place": [{"card": outside, "slot": 0}]},
        {"place": [{"card": hand[0] if hand else outside, "slot": n}]},
        {"place": [{"card": hand[0] if hand else outside, "slot": -1}]},
        {"place": "everything"},
        {"effect": "none"} if state.phase == "placement" else {"place": []},
        {"effect": "take", "target": seat, "deal": "C99"},
        {"effect": "switch_your", "deal": "C99"},
        {
            "effect": "switch_two",
            "first": {"seat": 0, "deal": "C99"},
            "second": {"seat": 0, "deal": "C98"},
        },
        {},
    ]
    if hand:
        bad.append({"place": [{"card": hand[0], "slot": 0}, {"card": hand[0], "slot": 0}]})
    return bad


@GAME
@given(seed=seeds, seats=seat_counts)
def test_legal_actions_accepted_and_illegal_rejected_unchanged(seed: int, seats: int) -> None:
    m = LocalMatch(RULES, seats, seed=seed)
    rng = random.Random(seed)
    for i, seat in enumerate(_steps(m, random.Random(seed))):
        if i % 2:
            continue
        state = m.state
        legal = RULES.legal(state, seat)
        assert legal["kind"] == m.pending()[0]["kind"]
        if legal["actions"] is not None:
            for a in legal["actions"]:
                RULES.check(state, seat, a)
        else:
            assert legal["space"] is not None
            cards = legal["space"]["cards"]
            slots = legal["space"]["slots"]
            chosen = rng.sample(cards, k=rng.randint(0, len(cards)))
            if slots:
                RULES.check(
                    state, seat, {"place": [{"card": c, "slot": rng.choice(slots)} for c in chosen]}
                )
            RULES.check(state, seat, {"place": []})
        before = RULES.dump(state)
        wrong_seat = (seat + 1) % seats
        tries = [(wrong_seat, RULES.default_action(state, seat))]
        tries += [(seat, a) for a in _illegal_actions(state, seat)]
        for who, action in tries:
            if who == seat and legal["actions"] is not None and action in legal["actions"]:
                continue
            try:
                m.rules.decide(state, who, action, random.Random(0))
            except IllegalAction as e:
                assert str(e)
            else:
                raise AssertionError(f"accepted illegal {action} from seat {who}")
            assert RULES.dump(state) == before
        assert RULES.legal(state, wrong_seat)["kind"] == "none"


@GAME
@given(seed=seeds, seats=seat_counts)
def test_default_actions_always_legal_and_end_the_game(seed: int, seats: int) -> None:
    m = LocalMatch(RULES, seats, seed=seed)
    rng = random.Random(seed)
    for _ in range(3000):
        pending = m.pending()
        if not pending:
            break
        seat = pending[0]["seat"]
        # Half the table times out every turn; the game still ends.
        action = RULES.default_action(m.state, seat) if seat % 2 else act(m.state, seat, rng)
        m.play(seat, action)
    assert m.pending() == []
    assert RULES.outcome(m.state) is not None


def test_dump_load_round_trips_through_json() -> None:
    m = LocalMatch(RULES, 4, seed=11)
    for _ in range(20):
        seat = m.pending()[0]["seat"]
        m.play(seat, act(m.state, seat, random.Random(1)))
        data = json.loads(json.dumps(RULES.dump(m.state)))
        assert RULES.load(data) == m.state
