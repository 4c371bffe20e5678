"""Rulebook examples E-B1/E-B2 and every ruling B-1..B-31 that changes behaviour (docs/games/brexit.md)."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from games.brexit.cards import (
    COUNTRIES,
    DECK_CARDS,
    KIND,
    NATIONS,
    NEGOTIATION_CARDS,
    SYMBOLS,
    VALUE,
)
from games.brexit.rules import RULES
from games.brexit.scoring import deal_points, final_result
from games.brexit.state import State
from games.engine.errors import BadOptions, IllegalAction
from games.engine.match import LocalMatch
from games.engine.types import Action
from tests.games.brexit.scenario import (
    assert_conserved,
    assert_replays,
    of_type,
    place,
    place_all,
    play_round,
    resolve,
    scored,
    table,
)

NEG = [f"NEG_{i:02d}" for i in range(1, 40)]


def hands3() -> list[list[str]]:
    """Three seats with negotiating cards and one of every effect each."""
    return [
        [
            *NEG[0:6],
            "BLOCK_1",
            "TAKE_1",
            "SWITCH_YOUR_1",
            "SWITCH_ANOTHER_1",
            "SWITCH_TWO_1",
            "ENG_PRODUCT",
        ],
        [
            *NEG[6:12],
            "BLOCK_2",
            "TAKE_2",
            "SWITCH_YOUR_2",
            "SWITCH_ANOTHER_2",
            "SWITCH_TWO_2",
            "SCO_PRODUCT",
        ],
        [
            *NEG[12:18],
            "BLOCK_3",
            "TAKE_3",
            "SWITCH_YOUR_3",
            "SWITCH_ANOTHER_3",
            "SWITCH_TWO_3",
            "WAL_PRODUCT",
        ],
    ]


def dealt() -> LocalMatch[State]:
    """After round 1: seat 0 holds C01, seat 1 holds C02; round 2 (start seat 1) shows C03, C04."""
    m = table(hands=hands3())
    play_round(m, {0: [("NEG_01", 0)], 1: [("NEG_07", 1)]})
    assert m.state.deals == [["C01"], ["C02"], []]
    assert m.state.slots == ["C03", "C04"]
    return m


# --- Rulebook examples ---------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_e_b1_reveal_one_country_fewer_than_players(seats: int) -> None:
    m = LocalMatch(RULES, seats, seed=seats)
    assert len(m.state.slots) == seats - 1
    (ev,) = of_type(m.events, "countries_revealed")
    assert len(ev["payload"]["countries"]) == seats - 1


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_e_b2_starting_hands(seats: int) -> None:
    m = LocalMatch(RULES, seats, seed=7)
    s = m.state
    assert [len(h) for h in s.hands] == [6] * seats
    assert {"BLOCK_1", "ENG_PRODUCT", "ENG_SOMETHING", "ENG_TOURISM"} <= set(s.hands[0])
    assert len(s.agenda_deck) == 6 - seats
    assert len(s.negotiation_deck) == 69 - seats - 2 * seats
    assert all(a is not None for a in s.agendas)


# --- Card data (B-1..B-5, B-24) ------------------------------------------------------------------


def test_b1_fifteen_country_specific_cards_value_3() -> None:
    specific = [c for c in NEGOTIATION_CARDS if KIND[c] == "country_specific"]
    assert len(specific) == 15
    assert {VALUE[c] for c in specific} == {3}
    assert Counter(c.split("_")[0] for c in specific) == dict.fromkeys(NATIONS, 3)


def test_b2_block_counts_zero_in_the_totals() -> None:
    m = table(hands=hands3())
    ev = play_round(m, {0: [("BLOCK_1", 0), ("NEG_01", 0)], 1: [("NEG_07", 1)]})
    slot0, slot1 = scored(ev)
    assert slot0["totals"] == [2, 0, 0] and slot0["blocked"] and slot0["winner"] is None
    assert slot1["winner"] == 1


def test_b3_effect_card_split_and_values() -> None:
    kinds = Counter(KIND[c] for c in NEGOTIATION_CARDS)
    assert kinds == {
        "negotiating": 39,
        "country_specific": 15,
        "block": 10,
        "take": 5,
        "switch_two": 5,
        "switch_your": 5,
        "switch_another": 5,
    }
    assert {k: VALUE[c] for c in NEGOTIATION_CARDS if (k := KIND[c]) != "country_specific"} == {
        "negotiating": 2,
        "block": 0,
        "take": 0,
        "switch_two": 1,
        "switch_your": 1,
        "switch_another": 1,
    }


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_b4_negotiation_deck_holds_undealt_effects_and_negotiating(seats: int) -> None:
    m = LocalMatch(RULES, seats, seed=1)
    s = m.state
    deck_and_hands = s.negotiation_deck + [c for h in s.hands for c in h]
    assert not [c for c in s.negotiation_deck if KIND[c] == "country_specific"]
    assert sorted(c for c in deck_and_hands if KIND[c] != "country_specific") == sorted(DECK_CARDS)
    unplayed_blocks = {f"BLOCK_{i}" for i in range(seats + 1, 6)}
    (shuffle,) = [e for e in m.events if e["payload"].get("deck") == "negotiation"]
    assert unplayed_blocks <= set(shuffle["payload"]["order"])


def test_b5_only_trade_deals_score() -> None:
    assert set(SYMBOLS) == set(COUNTRIES)  # no negotiation card carries a symbol
    assert deal_points([], "AG_EU") == 0


def test_b24_symbol_counts() -> None:
    counts = Counter(s for syms in SYMBOLS.values() for s in syms)
    assert counts == {
        "americas": 10,
        "asia": 10,
        "commonwealth": 10,
        "eu": 10,
        "money": 10,
        "viking": 7,
    }
    assert Counter(len(s) for s in SYMBOLS.values()) == {1: 17, 2: 17, 3: 2}


# --- Placement (B-6) ---------------------------------------------------------------------------


def test_b6_one_placement_per_player_in_seat_order_from_start() -> None:
    m = table(hands=hands3(), start=2)
    order = []
    for _ in range(3):
        seat = m.pending()[0]["seat"]
        order.append(seat)
        m.play(seat, place([]))
    assert order == [2, 0, 1]


def test_b6_placement_is_private_with_public_counts() -> None:
    m = table(hands=hands3())
    (ev,) = m.play(0, place([("NEG_01", 1), ("NEG_02", 1), ("TAKE_1", 0)]))
    assert ev["visible_to"] == [0]
    assert ev["redacted"] == {"seat": 0, "counts": [1, 2]}
    other = RULES.observe(m.state, 1)
    assert other["slots"][1]["counts"] == [2, 0, 0]
    assert other["slots"][1]["cards"] == [None, [], None]
    assert "NEG_01" not in str(other)
    assert RULES.observe(m.state, 0)["slots"][1]["cards"][0] == ["NEG_01", "NEG_02"]


def test_b6_flip_reveals_every_card() -> None:
    m = table(hands=hands3())
    m.play(0, place([("TAKE_1", 0)]))
    m.play(1, place([("NEG_07", 0)]))
    events = m.play(2, place([]))
    (flip,) = of_type(events, "cards_flipped")
    assert flip["visible_to"] is None
    assert flip["payload"]["placed"] == [
        [{"card": "TAKE_1", "slot": 0}],
        [{"card": "NEG_07", "slot": 0}],
        [],
    ]


# --- Effects (B-7..B-13, B-28) -------------------------------------------------------------------


def test_b7_block_is_automatic_and_no_target_keeps_value() -> None:
    m = table(hands=hands3())
    events = place_all(m, {0: [("SWITCH_YOUR_1", 0), ("BLOCK_1", 1)], 1: [("TAKE_2", 1)]})
    resolved = [e["payload"] for e in of_type(events, "effect_resolved")]
    assert [(p["card"], p["effect"], p.get("reason")) for p in resolved] == [
        ("SWITCH_YOUR_1", "none", "no target"),
        ("BLOCK_1", "block", None),
        ("TAKE_2", "none", "no target"),
    ]
    slot0, _ = scored(events)
    assert slot0["winner"] == 0  # the Switch's value of 1 still wins the country
    assert m.state.round == 2


def test_b7_optional_effect_offers_none_and_every_target() -> None:
    m = dealt()
    place_all(m, {2: [("TAKE_3", 0)]})
    assert m.pending() == [{"seat": 2, "kind": "effect"}]
    legal = RULES.legal(m.state, 2)
    assert legal["actions"] == [
        {"effect": "none"},
        {"effect": "take", "target": 0, "deal": "C01"},
        {"effect": "take", "target": 1, "deal": "C02"},
    ]
    obs = RULES.observe(m.state, 2)
    assert obs["effect"] == {"seat": 2, "card": "TAKE_3", "slot": 0}
    resolve(m, [{"effect": "none"}])
    assert m.state.deals[:2] == [["C01"], ["C02"]]


def test_b8_effects_resolve_by_seat_from_start_then_placement_order() -> None:
    m = dealt()  # round 2 starts at seat 1
    place_all(
        m,
        {
            0: [("TAKE_1", 1)],
            1: [("TAKE_2", 0), ("SWITCH_YOUR_2", 1)],
            2: [("TAKE_3", 1)],
        },
    )
    order = []
    while m.pending() and m.pending()[0]["kind"] == "effect":
        order.append(RULES.observe(m.state, None)["effect"]["card"])
        m.play(m.pending()[0]["seat"], {"effect": "none"})
    assert order == ["TAKE_2", "SWITCH_YOUR_2", "TAKE_3", "TAKE_1"]


def test_b9_b12_bids_follow_the_slot_after_switch_another() -> None:
    m = dealt()
    events = play_round(
        m,
        {2: [("NEG_13", 0), ("SWITCH_ANOTHER_3", 0)]},
        [{"effect": "switch_another", "target": 0, "deal": "C01"}],
    )
    slot0, _ = scored(events)
    assert slot0["country"] == "C01" and slot0["winner"] == 2 and slot0["totals"] == [0, 0, 3]
    assert m.state.deals == [["C03"], ["C02"], ["C01"]]


def test_b10_take_puts_deals_on_top_of_the_country_deck_last_on_top() -> None:
    m = dealt()
    place_all(m, {1: [("TAKE_2", 0)], 2: [("TAKE_3", 1)]})
    m.play(1, {"effect": "take", "target": 0, "deal": "C01"})
    assert RULES.observe(m.state, 2)["known_top"] == ["C01"]
    events = m.play(2, {"effect": "take", "target": 1, "deal": "C02"})
    reveal = of_type(events, "countries_revealed")[-1]
    assert reveal["payload"]["countries"] == ["C02", "C01"]
    assert m.state.deals == [[], [], []]


def test_b10_take_may_target_a_deal_gained_by_switch_this_phase() -> None:
    m = dealt()  # effect order this round: seat 1, seat 2, seat 0
    place_all(m, {2: [("SWITCH_ANOTHER_3", 0)], 0: [("TAKE_1", 1)]})
    m.play(2, {"effect": "switch_another", "target": 1, "deal": "C02"})
    assert m.state.deals[1] == ["C03"]
    assert {"effect": "take", "target": 1, "deal": "C03"} in (
        RULES.legal(m.state, 0)["actions"] or []
    )
    m.play(0, {"effect": "take", "target": 1, "deal": "C03"})
    assert m.state.round == 3 and m.state.slots == ["C03", "C05"]  # the taken deal comes back first
    assert m.state.deals == [["C01"], [], ["C02"]]  # C02 sat in slot 0, won by the Switch's 1


def test_b11_switch_your_trade_deal() -> None:
    m = dealt()
    events = play_round(m, {0: [("SWITCH_YOUR_1", 1)]}, [{"effect": "switch_your", "deal": "C01"}])
    _, slot1 = scored(events)
    assert slot1["country"] == "C01" and slot1["winner"] == 0
    assert sorted(m.state.deals[0]) == ["C01", "C04"]


def test_b11_switch_your_only_with_own_deals() -> None:
    m = dealt()
    place_all(m, {0: [("SWITCH_YOUR_1", 1)]})
    with pytest.raises(IllegalAction, match="you hold no trade deal 'C02'"):
        m.play(0, {"effect": "switch_your", "deal": "C02"})


def test_b13_switch_two_swaps_deals_of_two_other_players() -> None:
    m = dealt()
    place_all(m, {2: [("SWITCH_TWO_3", 0)]})
    before = RULES.dump(m.state)
    for bad, reason in [
        (
            {
                "effect": "switch_two",
                "first": {"seat": 0, "deal": "C01"},
                "second": {"seat": 0, "deal": "C01"},
            },
            "two different",
        ),
        (
            {
                "effect": "switch_two",
                "first": {"seat": 2, "deal": "C01"},
                "second": {"seat": 1, "deal": "C02"},
            },
            "another player's",
        ),
    ]:
        with pytest.raises(IllegalAction, match=reason):
            m.play(2, bad)
        assert RULES.dump(m.state) == before
    m.play(
        2,
        {
            "effect": "switch_two",
            "first": {"seat": 1, "deal": "C02"},
            "second": {"seat": 0, "deal": "C01"},
        },
    )
    assert m.state.deals == [["C02"], ["C01"], ["C03"]]  # the Switch's value 1 also won C03


def test_b13_b21_switch_two_never_acts_with_two_players() -> None:
    m = table(2, hands=[["NEG_01", "SWITCH_TWO_1"], ["NEG_02", "SWITCH_TWO_2"]])
    play_round(m, {0: [("NEG_01", 0)]})
    events = place_all(m, {1: [("SWITCH_TWO_2", 0)]})
    (ev,) = of_type(events, "effect_resolved")
    assert ev["payload"]["effect"] == "none" and ev["payload"]["reason"] == "no target"
    assert scored(events)[0]["winner"] == 1  # still worth 1


def test_b28_switch_your_on_a_blocked_slot() -> None:
    m = dealt()
    events = play_round(
        m,
        {1: [("BLOCK_2", 0)], 0: [("SWITCH_YOUR_1", 0)]},
        [{"effect": "switch_your", "deal": "C01"}],
    )
    slot0, _ = scored(events)
    assert slot0 == {
        "slot": 0,
        "country": "C01",
        "totals": [1, 0, 0],
        "blocked": True,
        "winner": None,
    }
    assert m.state.deals[0] == ["C03"]
    assert "C01" in m.state.country_discard


# --- Scoring and clean-up (B-14, B-15) -----------------------------------------------------------


def test_b14_tie_discards_country() -> None:
    m = table(hands=hands3())
    events = play_round(m, {0: [("NEG_01", 0)], 1: [("NEG_07", 0)]})
    slot0, slot1 = scored(events)
    assert slot0["winner"] is None and slot1["winner"] is None  # a tie, and nobody bidding
    assert m.state.country_discard == ["C01", "C02"]


def test_b14_unique_maximum_wins_and_zero_never_wins() -> None:
    m = table(hands=hands3())
    events = play_round(
        m,
        {0: [("NEG_01", 0), ("TAKE_1", 1)], 1: [("NEG_07", 0)], 2: [("NEG_13", 0), ("NEG_14", 0)]},
    )
    slot0, slot1 = scored(events)
    assert slot0["totals"] == [2, 2, 4] and slot0["winner"] == 2
    assert slot1["totals"] == [0, 0, 0] and slot1["winner"] is None


def test_b15_played_cards_discarded_country_specific_removed() -> None:
    m = table(hands=hands3())
    play_round(m, {0: [("ENG_PRODUCT", 0), ("NEG_01", 1)], 1: [("BLOCK_2", 1)]})
    assert m.state.removed == ["ENG_PRODUCT"]
    assert sorted(m.state.negotiation_discard) == ["BLOCK_2", "NEG_01"]
    assert m.state.deals[0] == ["C01"]
    assert RULES.observe(m.state, 1)["removed"] == ["ENG_PRODUCT"]


# --- Decks and rounds (B-16, B-17, B-18) ----------------------------------------------------------


def _all_but(keep: list[str]) -> list[list[str]]:
    rest = [c for c in DECK_CARDS if c not in keep]
    return [rest[0::3], rest[1::3], rest[2::3]]


def test_b16_reshuffle_only_when_drawing_from_an_empty_deck() -> None:
    m = table(hands=_all_but(["NEG_38", "NEG_39"]))
    assert len(m.state.negotiation_deck) == 2
    hand0 = list(m.state.hands[0])
    events = play_round(m, {0: [(hand0[0], 0)]})
    kinds = [e["type"] for e in events]
    i = kinds.index("discard_reshuffled")
    assert kinds[i - 2 : i + 2] == [
        "cards_drawn",
        "cards_drawn",
        "discard_reshuffled",
        "cards_drawn",
    ]
    ev = events[i]
    assert ev["visible_to"] == [] and ev["redacted"] == {"deck": "negotiation", "size": 1}
    assert ev["payload"]["order"] == [hand0[0]]
    # The draw right after the reshuffle is the reshuffled card itself: no empty draw before it.
    assert events[i + 1]["payload"] == {"seat": 0, "cards": [hand0[0]]}
    assert [e["payload"]["seat"] for e in of_type(events, "cards_drawn")] == [1, 2, 0]
    assert all(e["payload"]["cards"] for e in of_type(events, "cards_drawn"))
    assert_conserved(m.state)
    assert_replays(m)


def test_b16_draw_skipped_when_deck_and_discard_are_empty() -> None:
    m = table(hands=_all_but(["NEG_39"]))
    events = play_round(m, {})
    draws = [e["payload"] for e in of_type(events, "cards_drawn")]
    assert draws == [{"seat": 1, "cards": ["NEG_39"]}]
    assert not of_type(events, "discard_reshuffled")


def test_b16_country_discard_reshuffled_when_country_deck_runs_out() -> None:
    m = table(hands=[[], [], []])
    for _ in range(18):
        assert not of_type(m.events, "discard_reshuffled")
        play_round(m, {})
    (ev,) = of_type(m.events, "discard_reshuffled")
    assert ev["payload"]["deck"] == "country" and sorted(ev["payload"]["order"]) == sorted(
        COUNTRIES
    )
    # The reveal after the reshuffle is one event showing the first two reshuffled countries.
    after = m.events[m.events.index(ev) + 1]
    assert after["type"] == "countries_revealed"
    assert after["payload"]["countries"] == ev["payload"]["order"][:2]
    assert all(e["payload"]["countries"] for e in of_type(m.events, "countries_revealed"))
    assert m.state.round == 19 and len(m.state.slots) == 2
    assert_conserved(m.state)
    assert_replays(m)


def test_b16_a_reveal_past_the_deck_end_is_two_events_around_the_reshuffle() -> None:
    """As docs/games/brexit.md says of ``countries_revealed``: the rest of the deck, then
    ``discard_reshuffled``, then the remainder in a second event; the slots are both, in order."""
    # One country held as a deal leaves 35 in the deck: two a round, so one is left for the 18th.
    m = table(hands=[[], [], []], deals=[["C36"], [], []])
    for _ in range(17):
        events = play_round(m, {})  # nobody places: the countries go to the discard pile
    start = [e["type"] for e in events].index("round_started")
    reveal = [e for e in events[start + 1 :] if e["type"] != "cards_drawn"]
    assert [e["type"] for e in reveal] == [
        "countries_revealed",
        "discard_reshuffled",
        "countries_revealed",
    ]
    last, reshuffled, rest = reveal
    assert len(last["payload"]["countries"]) == 1  # what the deck still held
    assert reshuffled["payload"]["deck"] == "country"
    assert rest["payload"]["countries"] == reshuffled["payload"]["order"][:1]
    assert m.state.slots == last["payload"]["countries"] + rest["payload"]["countries"]
    assert_conserved(m.state)
    assert_replays(m)


def test_b17_start_moves_left_then_draws_from_new_start() -> None:
    m = table(hands=hands3(), start=2)
    events = play_round(m, {})
    (started,) = of_type(events, "round_started")
    assert started["payload"] == {"round": 2, "start_seat": 0}
    assert [e["payload"]["seat"] for e in of_type(events, "cards_drawn")] == [0, 1, 2]
    assert m.pending() == [{"seat": 0, "kind": "placement"}]


def test_b18_b20_game_ends_after_the_round_with_several_players_at_six() -> None:
    hands = [NEG[6 * s : 6 * s + 6] for s in range(5)]
    m = table(5, hands=hands, agendas=["AG_EU", "AG_VIKING", "AG_ASIA", "AG_MONEY", "AG_AMERICAS"])
    for r in range(3):
        assert m.pending()
        a, b, c, d = NEG[6 * 0 + 2 * r : 6 * 0 + 2 * r + 2] + NEG[6 + 2 * r : 6 + 2 * r + 2]
        events = play_round(m, {0: [(a, 0), (b, 1)], 1: [(c, 2), (d, 3)]})
    assert [len(d) for d in m.state.deals] == [6, 6, 0, 0, 0]
    assert m.pending() == []
    assert events[-1]["type"] == "game_ended"
    assert not of_type(events, "cards_drawn") and not of_type(events, "round_started")
    # Seat 0 (EU) holds C01-C02, C05-C06, C09-C10; seat 1 (Viking) C03-C04, C07-C08, C11-C12.
    out = RULES.outcome(m.state)
    assert out is not None
    assert out["scores"] == [7.0, 9.0, 0.0, 0.0, 0.0]
    assert out["ranks"] == [2, 1, 3, 3, 3]


def test_b18_a_player_may_hold_more_than_six() -> None:
    hands = [NEG[0:8], [], []]
    m = table(hands=hands)
    for r in range(3):
        play_round(m, {0: [(NEG[2 * r], 0), (NEG[2 * r + 1], 1)]})
    assert len(m.state.deals[0]) == 6 and m.pending() == []
    hands5 = [NEG[0:8], [], [], [], []]
    m5 = table(5, hands=hands5)
    play_round(m5, {0: [(c, i) for i, c in enumerate(NEG[0:4])]})
    play_round(m5, {0: [(c, i) for i, c in enumerate(NEG[4:8])]})
    assert len(m5.state.deals[0]) == 8 and m5.pending() == []


def _readme_bot(state: State, seat: int, rng: random.Random) -> Action:
    """The README's example bot: the first enumerated action, else place nothing."""
    legal = RULES.legal(state, seat)
    if legal["actions"]:
        return legal["actions"][0]
    return {"place": []}


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_b31_passive_bots_end_by_the_round_limit(seats: int) -> None:
    m = LocalMatch(RULES, seats, seed=11)
    assert m.events[0]["payload"]["options"]["max_rounds"] == 60
    # 60 rounds of one placement per seat; far fewer steps than an endless game would take.
    outcome = m.play_out([_readme_bot] * seats, random.Random(0), max_steps=60 * seats + 1)
    assert m.state.round == 60 and m.pending() == []
    ended = m.events[-1]
    assert ended["type"] == "game_ended" and ended["visible_to"] is None
    assert ended["payload"]["reason"] == "round_limit"
    assert [e["type"] for e in m.events[-2:]] == ["round_scored", "game_ended"]
    assert outcome["detail"]["reason"] == "round_limit"
    assert outcome["ranks"] == [1] * seats and outcome["scores"] == [0.0] * seats
    assert_replays(m)


def test_b31_a_small_round_limit_ends_with_the_usual_final_scoring() -> None:
    m = table(hands=hands3(), agendas=["AG_VIKING", "AG_EU", "AG_ASIA"], max_rounds=2)
    assert m.events[0]["payload"]["options"]["max_rounds"] == 2
    play_round(m, {0: [("NEG_01", 0)], 1: [("NEG_07", 1)]})  # C01 to seat 0, C02 to seat 1
    assert m.pending() and m.state.round == 2
    events = play_round(m, {0: [("NEG_02", 1)]})  # round 2 shows C03, C04: C04 to seat 0
    assert m.pending() == [] and m.state.deals == [["C01", "C04"], ["C02"], []]
    assert [e["type"] for e in events[-2:]] == ["round_scored", "game_ended"]
    assert not of_type(events, "round_started") and not of_type(events, "cards_drawn")
    payload = events[-1]["payload"]
    assert payload["reason"] == "round_limit"
    # B-19: Iceland (C01) and Sweden (C04) carry Viking (2 each); Norway (C02) has no EU symbol.
    assert payload["scores"] == final_result(m.state, "round_limit")["scores"] == [4, 1, 0]
    assert payload["ranks"] == [1, 2, 3]
    assert RULES.outcome(m.state) == {
        "scores": [4.0, 1.0, 0.0],
        "ranks": [1, 2, 3],
        "detail": {**payload["detail"], "reason": "round_limit"},
    }
    assert_replays(m)


def test_b31_six_deals_before_the_limit_end_the_game_as_before() -> None:
    m = table(hands=[NEG[0:8], [], []], max_rounds=3)
    for r in range(3):
        play_round(m, {0: [(NEG[2 * r], 0), (NEG[2 * r + 1], 1)]})
    assert len(m.state.deals[0]) == 6 and m.pending() == []
    assert m.events[-1]["payload"]["reason"] == "six_deals"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (0, "max_rounds"),
        (-5, "max_rounds"),
        (True, "max_rounds"),
        (2.0, "max_rounds"),
        ("60", "max_rounds"),
        (None, "max_rounds"),
        (1001, "1 to 1000"),
    ],
)
def test_b31_max_rounds_is_validated(value: object, message: str) -> None:
    with pytest.raises(BadOptions, match=message):
        RULES.options(3, {"max_rounds": value})
    assert RULES.options(3, {"max_rounds": 1000})["max_rounds"] == 1000
    assert RULES.options(3, {"max_rounds": 1})["max_rounds"] == 1


# --- Scenario set-up: trade deals already held ----------------------------------------------------


def test_scenario_deals_are_held_from_the_start_and_out_of_the_country_deck() -> None:
    deals = [["C05", "C06"], [], ["C07"]]
    m = table(hands=hands3(), countries=["C01", "C02"], deals=deals)
    assert m.state.deals == deals and m.state.slots == ["C01", "C02"]
    assert len(m.state.country_deck) == 36 - 3 - 2
    assert not {"C05", "C06", "C07"} & set(m.state.country_deck)
    assert_conserved(m.state)
    obs = RULES.observe(m.state, None)
    assert obs["deals"] == deals  # deals are public (B-23)
    started, redacted = m.events[0], m.events[0]["redacted"]
    assert started["visible_to"] == [] and redacted is not None
    assert "deals" in redacted["scenario"] and "C05" not in json.dumps(redacted)
    # The state does not share lists with the stored event or the caller's options.
    m.state.deals[0].append("C99")
    assert started["payload"]["options"]["deals"][0] == ["C05", "C06"] and deals[0] == [
        "C05",
        "C06",
    ]


def test_scenario_deals_reach_a_first_round_take_directly() -> None:
    m = table(hands=hands3(), deals=[["C30"], [], []])
    place_all(m, {1: [("TAKE_2", 0)]})
    assert RULES.legal(m.state, 1)["actions"] == [
        {"effect": "none"},
        {"effect": "take", "target": 0, "deal": "C30"},
    ]
    events = m.play(1, {"effect": "take", "target": 0, "deal": "C30"})
    assert of_type(events, "countries_revealed")[-1]["payload"]["countries"][0] == "C30"
    assert m.state.deals == [[], [], []]
    assert_conserved(m.state)
    assert_replays(m)


def test_scenario_deals_five_held_and_one_won_end_the_game_after_round_one() -> None:
    m = table(
        hands=hands3(),
        deals=[["C20", "C21", "C22", "C23", "C24"], [], []],
        agendas=["AG_VIKING", "AG_EU", "AG_ASIA"],
    )
    events = play_round(m, {0: [("NEG_01", 0)]})
    assert m.pending() == [] and m.events[-1]["payload"]["reason"] == "six_deals"
    assert of_type(events, "game_ended")[0]["payload"]["detail"]["deals"] == [6, 0, 0]


# --- Final score (B-19, B-20) ----------------------------------------------------------------------


def test_b19_a_deal_matches_once_however_many_symbols() -> None:
    assert deal_points(["C08"], "AG_AMERICAS") == 2  # Canada: Americas, Commonwealth, Money
    assert deal_points(["C08", "C01"], "AG_MONEY") == 3
    assert deal_points(["C01", "C02"], "AG_VIKING") == 4


def _final(deals: list[list[str]], agendas: list[str]) -> dict[str, object]:
    state = State(seats=len(deals), deals=deals, agendas=list(agendas))
    return final_result(state, "six_deals")


def test_b20_tie_broken_by_more_deals_then_shared() -> None:
    r = _final(
        [["C01", "C02"], ["C03", "C27", "C28"], ["C29", "C33"]], ["AG_VIKING", "AG_ASIA", "AG_ASIA"]
    )
    assert r["scores"] == [4, 3, 2]
    r = _final([["C01"], ["C27", "C28"], ["C29", "C33"]], ["AG_VIKING", "AG_ASIA", "AG_ASIA"])
    assert r["scores"] == [2, 2, 2] and r["ranks"] == [3, 1, 1]


# --- Players, nations, information (B-21..B-27, B-29, B-30) ---------------------------------------


@pytest.mark.parametrize("seats", [1, 6, "3"])
def test_b21_seat_counts_outside_2_to_5_are_rejected(seats: object) -> None:
    with pytest.raises(BadOptions, match="2 to 5"):
        RULES.setup(seats, 0)  # type: ignore[arg-type]


def test_b21_two_players_reveal_one_country() -> None:
    m = LocalMatch(RULES, 2, seed=3)
    assert len(m.state.slots) == 1


def test_b22_nations_in_seat_order_and_logged_seeded_start() -> None:
    m = LocalMatch(RULES, 5, seed=0)
    assert m.state.nations == ["ENG", "SCO", "WAL", "NIR", "COR"]
    assert m.events[0]["type"] == "game_started" and m.events[0]["visible_to"] is None
    starts = set()
    for seed in range(40):
        events = RULES.setup(5, seed)
        (ev,) = of_type(events, "start_seat_chosen")
        starts.add(ev["payload"]["seat"])
        assert ev["payload"]["seat"] == of_type(events, "round_started")[0]["payload"]["start_seat"]
    assert starts == {0, 1, 2, 3, 4}


def test_b23_hand_sizes_public_hands_hidden_no_hand_limit() -> None:
    m = table(hands=hands3())
    for _ in range(3):
        play_round(m, {})
    obs = RULES.observe(m.state, 1)
    assert obs["hand_sizes"] == [15, 15, 15]  # 12 + 3 draws each, no limit
    assert obs["hand"] == m.state.hands[1]
    assert RULES.observe(m.state, None)["hand"] is None


@pytest.mark.parametrize("seat", [-1, -3, 3, 7, True, "0", 0.0])
def test_b23_observe_rejects_a_seat_outside_the_table(seat: object) -> None:
    m = table(hands=hands3())
    before = RULES.dump(m.state)
    with pytest.raises(ValueError, match="seat"):
        RULES.observe(m.state, seat)  # type: ignore[arg-type]
    assert RULES.dump(m.state) == before
    assert RULES.observe(m.state, 2)["hand"] == m.state.hands[2]


def test_b25_agendas_distinct_and_unused_hidden() -> None:
    for seed in range(20):
        m = LocalMatch(RULES, 4, seed=seed)
        assert len(set(m.state.agendas)) == 4
        assert len(m.state.agenda_deck) == 2
        obs = RULES.observe(m.state, 0)
        assert obs["agenda"] == m.state.agendas[0]
        assert not {a for a in m.state.agendas[1:] if a} & set(str(obs).split("'"))
    with pytest.raises(BadOptions, match="appears twice"):
        RULES.options(3, {"agendas": ["AG_EU", "AG_EU", "AG_ASIA"]})


def test_b27_agenda_win_at_5_is_not_offered() -> None:
    with pytest.raises(BadOptions, match="unknown option 'agenda_win_at_5'"):
        RULES.options(4, {"agenda_win_at_5": True})


def test_b30_no_trading_action_exists() -> None:
    m = table(hands=hands3())
    with pytest.raises(IllegalAction, match="malformed placement action"):
        m.play(0, {"trade": {"seat": 1, "card": "NEG_01"}})


def test_b29_hands_and_decks_are_hidden() -> None:
    m = LocalMatch(RULES, 4, seed=21)
    s = m.state
    for viewer in (None, 0, 1, 2, 3):
        text = json.dumps(RULES.observe(s, viewer))
        for seat in range(4):
            if seat != viewer:
                # Starting nation cards are known anyway; the two drawn cards are not.
                for card in s.hands[seat][4:]:
                    assert f'"{card}"' not in text or (
                        viewer is not None and card in s.hands[viewer]
                    )
        for card in s.negotiation_deck[-5:]:
            assert f'"{card}"' not in text
