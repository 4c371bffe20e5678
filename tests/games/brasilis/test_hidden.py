"""Face-down cards stay hidden until the reveal, in observations and in every seat's event view (S-36, S-28, S-15)."""

from __future__ import annotations

import json
import random

import pytest

from games.brasilis.bots.random_legal import act
from games.brasilis.rules import RULES
from games.engine.events import view

from .helpers import card, of_type, play, start


def black_dispute():
    """Round 2, 4 seats, Oséias (0) reveals the black-background A03; seat 1 holds a Palanque."""
    return start(
        4,
        round=2,
        aids=[None, "palanque", None, None],
        wallet_order=[0, 1, 2, 3],
        news_deck=["A03"],
        hands=[["4", "1"], ["eliminate", "reposition", "1"], ["2", "1"], ["3", "1"]],
        reveal_in_order=True,
    )


def seen_by(m, seat, since):
    """Everything ``seat`` could read from the events after ``since`` and its observation now."""
    events = [view(ev, seat) for ev in m.events[since:]]
    return json.dumps(events) + json.dumps(RULES.observe(m.state, seat))


def test_s36_eliminated_face_down_card_stays_hidden_until_the_reveal():
    m = black_dispute()
    four = card(m, 0, "4")
    mark = len(m.events)
    play(m, 0, "4", 0)
    events = play(m, 1, "eliminate", 0)
    assert of_type(events, "eliminated")[0]["removed"] == four  # the full payload (its player's)
    for seat in (1, 2, 3, None):
        assert four not in seen_by(m, seat, mark), seat
    assert four in seen_by(m, 0, mark)  # its own player still knows it
    discard = RULES.observe(m.state, 2)["power_discard"]
    assert {"id": None, "kind": "hidden"} in discard
    assert {"id": four, "kind": "4"} in RULES.observe(m.state, 0)["power_discard"]

    for seat in (2, 3, 0):
        m.play(seat, {"pass": True})
    m.play(1, {"pass": True})
    revealed = of_type(m.events, "faces_revealed")
    assert revealed and revealed[-1]["eliminated"] == [four]  # revealed with the others
    assert {"id": four, "kind": "4"} in RULES.observe(m.state, 2)["power_discard"]


def test_s36_repositioned_face_down_card_stays_face_down():
    m = black_dispute()
    four = card(m, 0, "4")
    mark = len(m.events)
    play(m, 0, "4", 0)
    play(m, 1, "reposition", 0, destination=2)
    assert RULES.observe(m.state, 3)["stacks"][2] == [
        {
            "card": None,
            "kind": "hidden",
            "value": None,
            "multipliers": [],
            "locked": False,
            "face_down": True,
            "played_by": 0,
        }
    ]
    for seat in (1, 2, 3, None):
        assert four not in seen_by(m, seat, mark), seat
    assert RULES.observe(m.state, 0)["stacks"][2][0]["value"] == 4


def test_s36_palanque_copy_is_as_hidden_as_the_original_and_names_its_user():
    m = black_dispute()
    four = card(m, 0, "4")
    mark = len(m.events)
    play(m, 0, "4", 0)
    m.play(1, {"aid": "palanque", "neighbour": 0})
    for seat in (1, 2, 3, None):
        assert four not in seen_by(m, seat, mark), seat
        assert RULES.observe(m.state, seat)["stacks"][1][0]["value"] is None
    copy = RULES.observe(m.state, 0)["stacks"][1][0]
    assert copy["value"] == 4 and copy["kind"] == "palanque_copy"
    assert copy["played_by"] == 1  # the Palanque's user put it there


def test_s36_no_face_down_value_leaks_over_random_games():
    """Over whole random games: from a face-down card's play to the reveal, only its player sees it."""
    eliminated = 0
    for seed in range(12):
        m = start(4, seed, news_deck=["A03", "A10", "A15", "B06", "C06", "E02"])
        rng = random.Random(seed)
        hidden: dict[str, int] = {}  # face-down card id -> its player
        while m.pending() and len(m.events) < 20_000:
            seat = m.pending()[0]["seat"]
            new = m.play(seat, act(m.state, seat, rng))
            texts: list[tuple[int | None, str]] = []
            for ev in new:
                if ev["type"] == "faces_revealed":  # from here on they are public
                    break
                if ev["type"] == "card_played" and ev["payload"]["face_down"]:
                    hidden[ev["payload"]["card"]] = ev["payload"]["seat"]
                if ev["type"] == "eliminated" and ev["payload"]["removed"] in hidden:
                    eliminated += 1
                texts.extend((other, json.dumps(view(ev, other))) for other in (*range(4), None))
            else:
                texts.extend(
                    (other, json.dumps(RULES.observe(m.state, other)))
                    for other in (*range(4), None)
                )
            for other, text in texts:
                leaked = [c for c, owner in hidden.items() if owner != other and c in text]
                assert not leaked, (seed, other, leaked, text)
            if any(ev["type"] == "faces_revealed" for ev in new):
                hidden.clear()
    assert eliminated  # the case this test is about did happen


@pytest.mark.parametrize("seat", [-1, 4, 99, True, "1", 1.0])
def test_observe_rejects_a_seat_outside_the_table(seat):
    m = start(4)
    with pytest.raises(ValueError, match="not a seat at this table"):
        RULES.observe(m.state, seat)


def test_observe_accepts_every_seat_and_spectators():
    m = start(4)
    assert [RULES.observe(m.state, s)["seat"] for s in (0, 1, 2, 3, None)] == [0, 1, 2, 3, None]
