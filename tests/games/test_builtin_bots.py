"""Built-in bots (random, greedy, search, cautious, bold, quick) and the simulate statistics.

Bots must only ever return legal actions, be reproducible with an iteration
cap, act on their own information set, and simulate's numbers must match
hand-computed ones.

Every shipped game is checked (the registered games under games/: tests/support/shipped.py), so
a game added to the registry is too. High Card, the tests' own game, is not: it offers only
``random`` and ``greedy`` (the registry asks for ``random`` alone), not the six built-ins every
shipped game offers (docs/builtin-bots.md); tests/games/test_game_package.py plays its two.
"""

from __future__ import annotations

import dataclasses
import importlib
import io
import json
import math
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import simulate
from games.engine.builtin import make_player
from games.engine.match import LocalMatch, Player
from games.engine.registry import get
from tests.support.shipped import shipped_games

GAMES = shipped_games()
SIX = ["bold", "cautious", "greedy", "quick", "random", "search"]
"""The built-ins every shipped game offers (docs/builtin-bots.md)."""


def determinize(game: str) -> Callable[[Any, int, random.Random], Any]:
    """The game's search bot's determinization: a state its seat cannot tell from the real one."""
    search = importlib.import_module(get(game).builtin_bots["search"])
    return search.determinize  # type: ignore[no-any-return]


ONE_STEP = ["greedy", "cautious", "bold"]
"""The built-ins that read only their observation and legal actions (no search, no chance)."""
WALKERS = ["random", *ONE_STEP]
"""Who plays the walks whose states the tests ask about. The searches' rollouts made a walk 7 to 20
times dearer (2026-12-04); only the legality test needs them among the players, as it checks
every move they make along the way."""


def _players(game: str, seed: int, names: list[str]) -> dict[str, Player]:
    # Searches capped at 3 rollouts so the walks stay fast.
    return {name: make_player(game, name, iterations=3, seed=seed) for name in names}


def _walk(
    game: str, seed: int, seats: int, every: int = 1, by: list[str] | None = None
) -> list[tuple[Any, int]]:
    """(state copy, seat) pairs met while a random mix of built-ins (``by``; every one if not
    given) plays a game."""
    rules = get(game).rules
    players = _players(game, seed, by if by is not None else list(get(game).builtin_bots))
    rng = random.Random(seed)
    match = LocalMatch(rules, seats, seed=seed)
    met = []
    step = 0
    while pending := match.pending():
        for p in pending:
            seat = p["seat"]
            if step % every == 0:
                met.append((rules.load(rules.dump(match.state)), seat))
            step += 1
            name = rng.choice(sorted(players))
            action = players[name](match.state, seat, rng)
            rules.check(match.state, seat, action)  # raises IllegalAction with the reason
            match.play(seat, action)
    assert match.outcome() is not None
    return met


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), seats=st.sampled_from([3, 4, 5]))
def test_bots_only_play_legal_actions(game: str, seed: int, seats: int) -> None:
    # Every action any bot chose was checked inside _walk; the game also reached its end.
    assert _walk(game, seed, seats)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("name", ["greedy", "search", "cautious", "bold", "quick"])
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_bots_are_legal_in_states_they_did_not_steer(game: str, name: str, seed: int) -> None:
    rules = get(game).rules
    bot = make_player(game, name, iterations=2, seed=seed)
    for state, seat in _walk(game, seed, 4, every=7, by=WALKERS):
        before = rules.dump(state)
        action = bot(state, seat, random.Random(seed))
        rules.check(state, seat, action)
        assert rules.dump(state) == before, f"{name} changed the state it was shown"


@pytest.mark.parametrize("game", GAMES)
def test_search_is_deterministic_with_an_iteration_cap(game: str) -> None:
    def stream() -> list[Any]:
        rules = get(game).rules
        players = [make_player(game, "search", iterations=4, seed=s) for s in range(4)]
        match = LocalMatch(rules, 4, seed=11)
        match.play_out(players, random.Random(5))
        return match.events

    first = stream()
    assert first == stream()


@pytest.mark.parametrize("game", GAMES)
def test_quick_reads_no_clock_and_replays_exactly(game: str) -> None:
    # As the platform makes it (no budget, no cap given): the same seeds give the same game.
    def stream() -> list[Any]:
        players = [make_player(game, "quick", seed=4), make_player(game, "greedy")] * 2
        match = LocalMatch(get(game).rules, 4, seed=8)
        match.play_out(players, random.Random(2))
        return match.events

    first = stream()
    assert first == stream()


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("name", ["cautious", "bold"])
def test_styles_play_differently_from_greedy(game: str, name: str) -> None:
    # Guards against a style whose weights never change a decision: it would be greedy renamed.
    style, plain = make_player(game, name), make_player(game, "greedy")
    rng = random.Random(0)
    differ = sum(
        style(state, seat, rng) != plain(state, seat, rng)
        for state, seat in _walk(game, 5, 4, by=WALKERS)
    )
    assert differ >= 3


@pytest.mark.parametrize("game", GAMES)
def test_search_seed_changes_its_play(game: str) -> None:
    # Guards the determinism test above against a search that ignores its randomness.
    def events(seed: int) -> list[Any]:
        players = [make_player(game, "search", iterations=4, seed=seed)] + [
            make_player(game, "greedy")
        ] * 3
        match = LocalMatch(get(game).rules, 4, seed=11)
        match.play_out(players, random.Random(5))
        return match.events

    assert any(events(0) != events(s) for s in (1, 2, 3))


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_determinization_keeps_the_information_set(game: str, seed: int) -> None:
    rules = get(game).rules
    rng = random.Random(seed)
    changed = False
    for state, seat in _walk(game, seed, 4, every=5, by=WALKERS):
        sample = determinize(game)(state, seat, rng)
        assert rules.observe(sample, seat) == rules.observe(state, seat)
        assert rules.pending(sample) == rules.pending(state)
        changed = changed or rules.dump(sample) != rules.dump(state)
        # Nothing is created or lost: the same cards, redealt.
        assert _cards(game, sample) == _cards(game, state)
    assert changed, "determinization never changed any hidden card"


def _cards(game: str, state: Any) -> Counter[str]:
    if game == "brexit":
        zones = [*state.hands, *state.placed_cards, state.negotiation_deck, state.country_deck]
        zones.append([a for a in state.agendas if a] + state.agenda_deck)
    elif game == "brasilis":
        # The discard too: a face-down card eliminated into it is unseen until the reveal (S-36).
        zones = [*state.hands, state.power_deck, state.power_discard, *state.piles]
        zones += [state.news_deck, state.pool]
        zones.append([e["card"] for stack in state.stacks for e in stack if e["card"]])
        zones.append(state.offered)
    else:
        raise AssertionError(f"{game}: name where its cards lie here (every zone, hidden or not)")
    return Counter(c for zone in zones for c in zone)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("name", ONE_STEP)
def test_one_step_bots_act_on_their_observation_only(game: str, name: str) -> None:
    # Two states this seat cannot tell apart must get the same action.
    rules = get(game).rules
    act = make_player(game, name)
    rng = random.Random(3)
    for state, seat in _walk(game, 21, 4, every=3, by=WALKERS):
        other = determinize(game)(state, seat, rng)
        assert act(other, seat, rng) == act(state, seat, rng)
        assert rules.observe(other, seat) == rules.observe(state, seat)


@pytest.mark.parametrize("game", GAMES)
def test_every_named_bot_makes_a_player_that_plays_a_legal_move(game: str) -> None:
    rules = get(game).rules
    for name in get(game).builtin_bots:
        match = LocalMatch(rules, 4, seed=1)
        seat = match.pending()[0]["seat"]
        player = make_player(game, name, iterations=2, seed=1)
        rules.check(match.state, seat, player(match.state, seat, random.Random(1)))


def test_make_player_names_the_known_bots() -> None:
    # Every shipped game offers the six bots that docs/builtin-bots.md describes.
    assert {"brexit", "brasilis"} <= set(GAMES)
    assert {game: sorted(get(game).builtin_bots) for game in GAMES} == {game: SIX for game in GAMES}
    with pytest.raises(KeyError, match="built-in bots"):
        make_player("brexit", "oracle")
    with pytest.raises(KeyError, match="unknown game"):
        make_player("chess", "random")


# --- statistics -------------------------------------------------------------------------


def test_wilson_matches_published_values() -> None:
    # Reference values: Wilson (1927) / Newcombe (1998), table I, 95% intervals.
    low, high = simulate.wilson(81, 263)
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)
    low, high = simulate.wilson(0, 10)
    assert low == 0.0 and round(high, 4) == 0.2775
    low, high = simulate.wilson(15, 148)
    assert (round(low, 4), round(high, 4)) == (0.0624, 0.1605)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 2000), data=st.data())
def test_wilson_contains_the_rate_and_narrows(n: int, data: st.DataObject) -> None:
    k = data.draw(st.integers(0, n))
    low, high = simulate.wilson(k, n)
    assert 0 <= low <= k / n <= high <= 1
    low4, high4 = simulate.wilson(4 * k, 4 * n)
    assert high4 - low4 < high - low


def test_mean_interval_by_hand() -> None:
    mean, low, high = simulate.mean_interval([1.0, 2.0, 3.0, 4.0])
    # sample sd of 1..4 is sqrt(5/3); half-width = z * sd / 2
    half = simulate.Z95 * math.sqrt(5 / 3) / 2
    assert mean == 2.5
    assert math.isclose(low, 2.5 - half) and math.isclose(high, 2.5 + half)


def test_summarise_splits_shared_wins_and_averages_ranks() -> None:
    rows = [
        # game 1: a wins alone
        simulate.SeatResult("a", 0, 1, 5.0, 1.0),
        simulate.SeatResult("b", 1, 2, 3.0, 0.0),
        # game 2: a and b share first place
        simulate.SeatResult("b", 0, 1, 4.0, 0.5),
        simulate.SeatResult("a", 1, 1, 4.0, 0.5),
        # game 3: b wins
        simulate.SeatResult("a", 0, 2, 1.0, 0.0),
        simulate.SeatResult("b", 1, 1, 2.0, 1.0),
    ]
    stats = {s.bot: s for s in simulate.summarise(rows)}
    assert stats["a"].games == 3 and stats["a"].wins == 1.5
    assert math.isclose(stats["a"].mean_rank, 4 / 3)
    assert math.isclose(stats["b"].mean_rank, 4 / 3)
    assert math.isclose(stats["a"].mean_score, 10 / 3)
    assert (stats["a"].win_low, stats["a"].win_high) == simulate.wilson(1.5, 3)


def test_seating_rotates_every_bot_through_every_seat() -> None:
    lineup = ["search", "greedy", "greedy", "greedy"]
    seen = Counter(simulate.seating(lineup, i).index("search") for i in range(8))
    assert seen == {0: 2, 1: 2, 2: 2, 3: 2}


def test_run_is_the_same_on_one_or_two_processes() -> None:
    lineup = ["greedy", "random", "random"]
    one = simulate.run("brexit", lineup, 6, seed=4, jobs=1)
    two = simulate.run("brexit", lineup, 6, seed=4, jobs=2)

    def key(r: simulate.SeatResult) -> tuple[Any, ...]:
        return (r.bot, r.seat, r.rank, r.score)

    assert sorted(one, key=key) == sorted(two, key=key)
    assert len(one) == 18
    # Each game has at least one winner and the win shares of a game sum to 1.
    assert math.isclose(sum(r.win for r in one), 6)


def test_run_rejects_a_bad_table() -> None:
    with pytest.raises(ValueError, match="seats"):
        simulate.run("brasilis", ["random", "random"], 1)


def test_json_line_round_trips() -> None:
    rows = simulate.run("brasilis", ["greedy", "random", "random", "random"], 4, seed=2)
    line = simulate.as_json(
        "brasilis", ["greedy", "random", "random", "random"], 4, simulate.summarise(rows)
    )
    data = json.loads(line)
    assert data["ties"] == "fractional"
    assert sum(b["seat_games"] for b in data["bots"]) == 16


def test_simulate_command_prints_a_table() -> None:
    django = pytest.importorskip("django")
    from django.conf import settings as django_settings

    if not django_settings.configured:
        pytest.skip("Django settings are not configured (run without -p no:django)")
    django.setup()
    from django.core.management import call_command

    out = io.StringIO()
    call_command(
        "simulate",
        "--game=brexit",
        "--seat=greedy",
        "--seat=random",
        "--seat=random",
        "--games=4",
        "--no-progress",
        "--json",
        stdout=out,
    )
    text = out.getvalue()
    assert "win rate" in text and "greedy" in text
    data = json.loads(text.strip().splitlines()[-1])
    assert data["games"] == 4


def test_the_table_keeps_its_columns_under_a_long_bot_path() -> None:
    # An uploaded bot is named by its path: a name longer than the first column pushed its row
    # out from under the header.
    rows = simulate.run("brexit", ["greedy", "random", "random"], 2, seed=3)
    long_name = "/home/someone/bots/a-rather-long-folder/bot.py"
    renamed = [dataclasses.replace(r, bot=long_name) if r.bot == "greedy" else r for r in rows]
    lines = simulate.table(simulate.summarise(renamed)).splitlines()
    head, rule, body = lines[0], lines[1], lines[2:]
    assert {len(line) for line in lines} == {len(head)}
    assert rule == "-" * len(head)
    assert {line.split()[0] for line in body} == {long_name, "random"}
    for column in ("games", "wins", "score"):
        end = head.index(column) + len(column)
        assert all(line[end - 1] != " " and line[end : end + 1] in (" ", "") for line in body)
