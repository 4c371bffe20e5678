"""Option validation: unknown keys and bad scenario values raise BadOptions with the reason."""

from __future__ import annotations

from typing import Any

import pytest

from games.brexit.rules import RULES
from games.engine.errors import BadOptions


def test_defaults_are_filled_and_recorded_in_game_started() -> None:
    opts = RULES.options(4, None)
    assert opts == {
        "max_rounds": 60,
        "country_deck": None,
        "negotiation_deck": None,
        "hands": None,
        "agendas": None,
        "deals": None,
        "start_seat": None,
    }
    first = RULES.setup(4, 1, None)[0]
    assert first["type"] == "game_started" and first["visible_to"] is None
    assert first["payload"]["options"] == opts
    assert first["payload"]["engine_version"] == RULES.engine_version


def test_a_stacked_scenario_is_recorded_but_seen_by_nobody_until_the_end() -> None:
    first = RULES.setup(
        4, 1, {"start_seat": 2, "agendas": ["AG_EU", "AG_ASIA", "AG_VIKING", "AG_MONEY"]}
    )[0]
    assert first["type"] == "game_started" and first["visible_to"] == []
    assert first["payload"]["options"]["start_seat"] == 2
    assert first["redacted"] is not None
    assert first["redacted"]["scenario"] == ["agendas", "start_seat"]
    assert "AG_EU" not in str(first["redacted"])
    assert first["payload"]["seats"] == 4


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"colour": "red"}, "unknown option 'colour'"),
        ({"country_deck": ["C01", "NEG_01"]}, "'NEG_01' is not a country card"),
        ({"country_deck": ["C01", "C01"]}, "'C01' appears twice"),
        ({"country_deck": "C01"}, "must be a list of card ids"),
        ({"negotiation_deck": ["BLOCK_1"]}, "outside the starting hands"),
        ({"negotiation_deck": ["ENG_PRODUCT"]}, "outside the starting hands"),
        ({"hands": [["NEG_01"], ["NEG_02"]]}, "one hand per seat"),
        ({"hands": [["NEG_01"], ["NEG_01"], []]}, "in no other hand"),
        ({"hands": [["C01"], [], []]}, "'C01' is not a negotiation card"),
        ({"agendas": ["AG_EU", "AG_ASIA"]}, "one agenda per seat"),
        ({"agendas": ["AG_EU", "AG_ASIA", "AG_NONE"]}, "'AG_NONE' is not an agenda"),
        ({"start_seat": 3}, "must be a seat 0..2"),
        ({"start_seat": True}, "must be a seat 0..2"),
        ({"deals": [["C01"], []]}, "one list of trade deals per seat"),
        ({"deals": "C01"}, "one list of trade deals per seat"),
        ({"deals": [["C01"], "C02", []]}, "option 'deals' must be a list of card ids"),
        ({"deals": [["NEG_01"], [], []]}, "'NEG_01' is not a country card"),
        ({"deals": [["C01"], ["C01"], []]}, "'C01' is not a country card that no other seat holds"),
        ({"deals": [["C01", "C01"], [], []]}, "'C01' appears twice"),
        (
            {"deals": [["C01", "C02", "C03", "C04", "C05", "C06"], [], []]},
            "seat 0 holds 6 deals: the game would already be over",
        ),
        (
            {"deals": [["C01"], [], []], "country_deck": ["C02", "C01"]},
            "'C01' is both in 'country_deck' and held in 'deals'",
        ),
    ],
)
def test_bad_options_are_rejected(options: dict[str, Any], message: str) -> None:
    with pytest.raises(BadOptions, match=message.replace("(", r"\(").replace(".", r"\.")):
        RULES.options(3, options)
    with pytest.raises(BadOptions):
        RULES.setup(3, 0, options)


def test_stacked_decks_are_on_top_and_the_rest_shuffled_below() -> None:
    events = RULES.setup(3, 5, {"country_deck": ["C36", "C35"], "negotiation_deck": ["NEG_39"]})
    decks = {
        e["payload"]["deck"]: e["payload"]["order"] for e in events if e["type"] == "deck_shuffled"
    }
    assert decks["country"][:2] == ["C36", "C35"] and len(decks["country"]) == 36
    assert decks["negotiation"][0] == "NEG_39"
    other = RULES.setup(3, 6, {"country_deck": ["C36", "C35"]})
    assert (
        next(e for e in other if e["type"] == "deck_shuffled")["payload"]["order"]
        != decks["country"]
    )


def test_a_scenario_deals_option_is_hidden_like_the_others() -> None:
    events = RULES.setup(3, 2, {"deals": [[], ["C12", "C13"], []]})
    first = events[0]
    assert first["visible_to"] == [] and first["redacted"] is not None
    assert first["redacted"]["scenario"] == ["deals"]
    assert first["redacted"]["options"] == {"max_rounds": 60}
    assert "C12" not in str(first["redacted"])
    (country,) = [
        e for e in events if e["type"] == "deck_shuffled" and e["payload"]["deck"] == "country"
    ]
    assert len(country["payload"]["order"]) == 34
