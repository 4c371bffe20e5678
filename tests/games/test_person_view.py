"""What a person reads of each shipped game: sentences without ids, cards with their value and
effect, from the games' own data (games/<game>/view/cards.py over their card files).

Whole games of random bots are played in memory; at every decision of every seat the
person's controls are built from what a bot of that seat is given, and read as a person
would. The browser tests (tests/e2e/test_human_browser.py) check the same on the page.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from games.brasilis.cards import AID_NAME, AID_RULE, NEWS, POWER_KIND, POWER_TEXT, POWER_VALUE
from games.brasilis.view.controls import describe
from games.brexit.cards import KIND, KIND_TEXT, SYMBOL_ABBR, VALUE
from games.brexit.view.controls import describe as brexit_describe
from games.engine.events import view
from games.engine.match import LocalMatch
from games.engine.registry import GAMES, get

RAW_ID = re.compile(
    r"\bP_\d+|\b[A-Z]{1,2}\d{1,2}\b|\bEV\d+\b|\b[A-Z]+_[A-Z0-9_]+\b"
    r"|\b(?:seat|target|slot|destination|neighbour|deal|give_to|play)\s*:?\s*\d|[{}\[\]\"]"
)
"""An engine id (a card, a news, an agenda), a bare seat number, or raw JSON."""
SENTENCE = re.compile(r"^[A-Z][^\n]*[a-z]")
LOG_LINE = re.compile(r"^[A-Z0-9“$][^\n]*[a-z]")
"""A log's sentence may open with a count ("4 news cards go to the pizza.") or a headline."""

SHORT: dict[str, dict[str, Any]] = {
    "brexit": {"max_rounds": 8},
    "brasilis": {"media_control": True, "more_your_way": {"rounds": 4}},
}
"""Options that reach every decision kind in a few games (Bra$ilis' Media Control shows the
revealer two news before either is in dispute)."""


def decisions(game: str, seats: int, seed: int) -> Iterator[tuple[Any, Any, list[str], int]]:
    """(observation, legal, labels, seat) at every decision of a game of random bots."""
    info = get(game)
    rules = info.rules
    match = LocalMatch(rules, seats, seed, options=SHORT[game])
    labels = info.view.seat_labels(seats, match.events[0]["payload"])
    rng = random.Random(seed)
    for _ in range(5000):
        pending = rules.pending(match.state)
        if not pending:
            return
        for p in pending:
            seat = p["seat"]
            yield rules.observe(match.state, seat), rules.legal(match.state, seat), labels, seat
            match.play(seat, info.random_player(match.state, seat, rng))
    pytest.fail("the game did not end")


@pytest.mark.parametrize("game", ["brexit", "brasilis"])
def test_every_choice_offered_is_a_sentence_without_ids(game: str) -> None:
    view = GAMES[game].view
    kinds: set[str] = set()
    for seats, seed in ((3, 1), (4, 2), (5, 3)):
        for observation, legal, labels, seat in decisions(game, seats, seed):
            controls = view.controls(legal, observation, labels, seat)
            kinds.add(controls["kind"])
            shown = [controls["title"], *(c["label"] for c in controls.get("choices", []))]
            for sentence in shown:
                assert SENTENCE.match(sentence) and not RAW_ID.search(sentence), sentence
            for group in {c["group"] for c in controls.get("choices", [])} - {""}:
                assert not RAW_ID.search(group), group
            placement = controls.get("placement") or {}
            for slot in placement.get("slots", []):
                assert not RAW_ID.search(slot["name"]), slot
            for card in [*placement.get("cards", []), *controls.get("about", [])]:
                assert card["name"] and card["text"] and not RAW_ID.search(card["name"]), card
            assert "raw" not in controls, controls  # every decision has a widget of its own
    assert kinds >= {"brexit": {"placement", "effect"}, "brasilis": {"dispute", "bid"}}[game]


def test_a_brexit_card_shows_its_value_and_effect_from_the_card_data() -> None:
    view = GAMES["brexit"].view
    for observation, _legal, labels, seat in decisions("brexit", 4, 5):
        board = view.board(observation, {seat: observation}, labels)
        for card in board["players"][seat]["hand"]:
            assert card["value"] == VALUE[card["id"]] and 0 <= card["value"] <= 3
            assert card["text"] == KIND_TEXT[KIND[card["id"]]]
        agenda = board["players"][seat]["agenda"]
        assert agenda["symbol"]["name"] in agenda["text"]  # "... the Asia symbol scores 2"
        for slot in board["slots"]:
            for symbol in slot["symbols"]:
                assert symbol["abbr"] == SYMBOL_ABBR[symbol["id"]] and symbol["text"]


def test_brexit_abbreviations_all_have_a_key() -> None:
    key = {e["abbr"]: e for s in GAMES["brexit"].view.glossary() for e in s["entries"]}
    for abbr in SYMBOL_ABBR.values():  # AS, CW, AM...
        assert key[abbr]["name"] and key[abbr]["text"]


def test_a_brasilis_bid_says_what_is_auctioned() -> None:
    view = GAMES["brasilis"].view
    bids = 0
    for observation, legal, labels, seat in decisions("brasilis", 4, 1):
        if legal["kind"] != "bid":
            continue
        controls = view.controls(legal, observation, labels, seat)
        lot = observation["auction"]["lot"]
        assert f"for the {AID_NAME[lot]}" in controls["title"]
        assert controls["about"] == [
            {**controls["about"][0], "name": AID_NAME[lot], "text": AID_RULE[lot]}
        ]
        bids += 1
    assert bids


def test_a_news_effect_shows_before_it_is_in_dispute_where_the_seat_may_see_it() -> None:
    """Media Control: the revealer picks one of two news; each choice says what it does."""
    view = GAMES["brasilis"].view
    picks = 0
    for observation, legal, labels, seat in decisions("brasilis", 4, 2):
        if legal["kind"] != "media_pick":
            continue
        controls = view.controls(legal, observation, labels, seat)
        for choice, action in zip(controls["choices"], legal["actions"], strict=True):
            news = NEWS[action["reveal"]]
            assert f"“{news.headline}”" in choice["label"] and "image" in choice["label"]
        board = view.board(observation, {seat: observation}, labels)
        offered = board["politicians"][seat]["offered"]
        assert [n["name"] for n in offered] == [NEWS[c].headline for c in observation["offered"]]
        assert all("vote" in n["text"] for n in offered)
        picks += 1
    assert picks


def test_a_brasilis_hand_shows_each_cards_value_and_effect() -> None:
    view = GAMES["brasilis"].view
    for observation, _legal, labels, seat in decisions("brasilis", 3, 4):
        board = view.board(observation, {seat: observation}, labels)
        for card in board["politicians"][seat]["hand"]:
            kind = POWER_KIND[card["id"]]
            assert card["value"] == POWER_VALUE[kind] and card["text"] == POWER_TEXT[kind]


def test_a_dispute_play_names_the_card_and_the_politician() -> None:
    observation = {
        "hand": [{"id": "P_30", "kind": "4"}, {"id": "P_48", "kind": "eliminate"}],
        "stacks": [[], [{"card": "P_20", "kind": "3", "value": 3}], []],
        "news": {"black": False},
    }
    names = ["Politician 1", "Politician 2", "Politician 3"]
    assert describe({"play": "P_30", "target": 1}, observation, names, 0) == (
        "Play your 4 on Politician 2"
    )
    assert describe({"play": "P_30", "target": 0}, observation, names, 0) == (
        "Play your 4 on yourself"
    )
    assert describe({"play": "P_48", "target": 1}, observation, names, 0) == (
        "Eliminate Politician 2's last card (a 3)"
    )


def test_each_game_has_a_rules_summary_from_its_rules_doc() -> None:
    for info in GAMES.values():
        if info.name in ("brexit", "brasilis"):
            summary = info.rules_summary
            assert len(summary) > 300 and summary in info.rules_path.read_text(encoding="utf-8")
            assert not RAW_ID.search(summary), summary


def test_an_effect_names_the_deals_and_the_nations() -> None:
    observation = {
        "effect": {"seat": 0, "card": "TAKE_1", "slot": 1},
        "slots": [
            {"slot": 0, "country": "C18"},
            {"slot": 1, "country": "C30"},
        ],
    }
    names = ["England", "Scotland", "Wales"]
    assert brexit_describe(
        {"effect": "take", "target": 1, "deal": "C08"}, observation, names, 0
    ) == ("Take Canada from Scotland")
    assert brexit_describe({"effect": "switch_your", "deal": "C08"}, observation, names, 0) == (
        "Swap your Canada for Germany"
    )
    assert (
        brexit_describe(
            {"effect": "switch_another", "target": 2, "deal": "C01"}, observation, names, 0
        )
        == "Give Wales Germany for their Iceland"
    )
    assert brexit_describe({"effect": "none"}, observation, names, 0) == "Use no effect"


@pytest.mark.parametrize("game", ["brexit", "brasilis"])
def test_every_event_is_told_by_the_game_in_a_sentence_without_ids(game: str) -> None:
    """The log's words for every event of whole games (Bra$ilis with Media Control, whose news
    are offered to the revealer), as each seat and a spectator see it: the game's own narrator
    tells each one (never the platform's plain fallback), in a sentence without engine ids."""
    info = get(game)
    told: set[str] = set()
    for seats, seed in ((3, 1), (5, 3)):
        match = LocalMatch(info.rules, seats, seed, options=SHORT[game])
        rng = random.Random(seed)
        while pending := info.rules.pending(match.state):
            for p in pending:
                match.play(p["seat"], info.random_player(match.state, p["seat"], rng))
        labels = info.view.seat_labels(seats, match.events[0]["payload"])
        for viewer in (None, *range(seats)):
            narrator = info.view.narrator(labels)
            for event in match.events:
                seen = view(event, viewer)
                sentence = narrator.tell(seen["type"], seen["payload"])
                assert sentence is not None, (viewer, seen)
                assert LOG_LINE.match(sentence) and not RAW_ID.search(sentence), (seen, sentence)
                told.add(seen["type"])
    assert "news_offered" in told or game != "brasilis"


@pytest.mark.parametrize(
    ("type_", "payload", "sentence"),
    [
        ("skipped", {"seat": 1}, "Politician 2 has passed and is skipped."),
        ("dispute_cleared", {}, "The dispute's cards go to the discard pile."),
        ("lawyer_declined", {"seat": 0}, "Politician 1 does not pay the lawyer."),
        ("news_lost", {"seat": 2}, "Politician 3 loses a news card."),  # as the others see it
        ("extra_vote", {"seat": 0}, "Politician 1 takes an extra vote card."),
        (
            "aid_discarded",
            {"aid": "lawyer"},
            "No bid reaches the minimum: the lawyer is discarded.",
        ),
        ("auction_closed", {}, "The auction closes."),
        (
            "refill",
            {"holders": 1},
            "Only 1 politician holds influence cards: every hand is refilled.",
        ),
        (
            "round_ended",
            {"round": 2, "leftover": 3},
            "Round 2 ends; 3 unrevealed news cards leave the game.",
        ),
        ("round_ended", {"round": 3, "leftover": 0}, "Round 3 ends."),
    ],
)
def test_a_brasilis_event_reads_as_the_game_tells_it(
    type_: str, payload: dict[str, Any], sentence: str
) -> None:
    narrator = get("brasilis").view.narrator(["Politician 1", "Politician 2", "Politician 3"])
    assert narrator.tell(type_, payload) == sentence


def test_a_news_named_in_an_event_reads_as_its_headline() -> None:
    news = next(iter(NEWS))
    narrator = get("brasilis").view.narrator(["Politician 1", "Politician 2"])
    headline = f"“{NEWS[news].headline}”"
    assert (
        narrator.tell("news_lost", {"seat": 1, "card": news}) == f"Politician 2 loses {headline}."
    )
    assert narrator.tell("news_removed", {"news": news}) == f"{headline} is removed from the game."
    assert narrator.tell("lawyer_used", {"seat": 0, "news": news}) == (
        f"Politician 1 pays the lawyer: {headline} is cancelled."
    )
