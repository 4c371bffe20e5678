"""What the registry-wide tests need to know about each game beyond the engine contract.

One :class:`Profile` per registered game: option strategies, a player that
reaches every decision kind, the conservation invariants, which zones a seat
cannot see, and which events may legitimately show a seat something it did not
know (a draw into its hand, a reveal). test_contract.py fails for a registered
game without a profile, so a new game gets every contract check at once. The
shipped games' profiles are here; a game the tests register brings its own in its
package (``<package>.profile.PROFILE``), found through the registry.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from games.brasilis.cards import (
    EXTRA_VOTE_IDS,
    INFLUENCE_VALUE,
    NEWS_IDS,
    POWER_IDS,
    TOTAL_MONEY,
)
from games.brasilis.state import State as BrasilisState
from games.brexit.cards import DECK_CARDS
from games.brexit.state import State as BrexitState
from games.engine.match import LocalMatch
from games.engine.registry import GAMES, GameInfo
from games.engine.shapes import Shape
from games.engine.types import Action, Event, Seat
from tests.games.brexit.scenario import assert_conserved

Zones = list[tuple[str, list[str]]]
"""(class, card ids): cards a seat cannot see, grouped so that swapping within a class is consistent."""


@dataclass(frozen=True)
class Profile:
    options: st.SearchStrategy[dict[str, Any]]
    """Options for a random match (variants that change which decisions occur)."""
    act: Callable[[Any, Seat, random.Random], Action]
    """A player that reaches every decision kind (the random player plus what it never tries)."""
    invariants: Callable[[Any], None]
    """Raise AssertionError if the state breaks a conservation law (money, cards)."""
    hidden: Callable[[Any, Seat | None, bool], Zones]
    """The card ids ``seat`` (None: a spectator) cannot see, by exchangeable class.

    With ``recall`` true, only those it could not know even by remembering every event it
    saw (a News attributed in public is known, though piles are secret in the observation).
    """
    touch_up: Callable[[Any, Seat | None, dict[str, str], random.Random], None]
    """Make the state consistent after renaming, and change hidden non-card facts (sealed bids)."""
    reveals: Callable[[Event, Seat | None], bool]
    """Whether ``event`` may show ``seat`` what was hidden before (its own draw, a public reveal)."""
    shapes: dict[str, Shape]
    """The game's action shape per decision kind (games/<name>/actions.py): its decision kinds."""


# --- Brexit ---------------------------------------------------------------------------------

_BREXIT_DECK = set(DECK_CARDS)


def _brexit_hidden(s: BrexitState, seat: Seat | None, recall: bool) -> Zones:
    others = [p for p in range(s.seats) if p != seat]
    deck_cards = list(s.negotiation_deck)
    own_cards: Zones = []
    for p in others:
        face_down = [] if s.flipped else s.placed_cards[p]
        deck_cards += [c for c in s.hands[p] + face_down if c in _BREXIT_DECK]
        # A seat's starting cards are known as a set (its nation is public, plays are revealed):
        # only which of them is in the hand and which lies face down is hidden.
        own = [c for c in s.hands[p] + face_down if c not in _BREXIT_DECK]
        own_cards.append((f"starting {p}", own))
    agendas = list(s.agenda_deck) + [a for p in others if (a := s.agendas[p]) is not None]
    unknown_countries = s.country_deck[: len(s.country_deck) - s.known_top]
    return [
        ("negotiation", deck_cards),
        *own_cards,
        ("agenda", agendas),
        ("country", list(unknown_countries)),
    ]


def _brexit_touch_up(
    s: BrexitState, seat: Seat | None, renamed: dict[str, str], rng: random.Random
) -> None:
    pass  # a card's identity is all there is: nothing derived to recompute


def _brexit_reveals(ev: Event, seat: Seat | None) -> bool:
    if ev["type"] in ("countries_revealed", "cards_flipped", "game_ended"):
        return True
    mine = seat is not None and ev["visible_to"] is not None and seat in ev["visible_to"]
    return ev["type"] in ("cards_drawn", "agenda_drawn") and mine


# --- Bra$ilis -------------------------------------------------------------------------------


def _brasilis_hidden(s: BrasilisState, seat: Seat | None, recall: bool) -> Zones:
    others = [p for p in range(s.n) if p != seat]
    power = list(s.power_deck)
    for p in others:
        power += s.hands[p]
    face_down = [
        e["card"]
        for stack in s.stacks
        for e in stack
        if e["down"] and e["by"] != seat and e["card"] is not None
    ]
    news = list(s.news_deck) + list(s.pool)
    if seat is None or seat != s.revealer:
        news += s.offered
    if s.trade is not None and seat in (s.trade["from"], s.trade["to"]):
        offered = set(s.trade["cards"])  # both parties see the offered cards
        power = [c for c in power if c not in offered]
    votes = list(s.extra_votes)
    # During the Lawyer window the News just attributed is shown to everyone (it is being decided).
    deciding = (
        s.piles[s.attributed][-1]
        if s.phase == "lawyer" and s.attributed is not None and s.piles[s.attributed]
        else None
    )
    for p in others:
        if not recall:  # every News enters a pile in public (news_attributed)
            news += [c for c in s.piles[p] if not c.startswith("EV") and c != deciding]
        votes += [c for c in s.piles[p] if c.startswith("EV")]
    influence = [c for c in power if c in INFLUENCE_VALUE] + face_down
    return [
        ("influence", influence),
        ("other power", [c for c in power if c not in INFLUENCE_VALUE]),
        ("news", news),
        ("extra votes", votes),
    ]


def _brasilis_touch_up(
    s: BrasilisState, seat: Seat | None, renamed: dict[str, str], rng: random.Random
) -> None:
    """Printed values follow the renamed cards; others' sealed bids change."""
    back = {new: old for old, new in renamed.items()}
    for stack in s.stacks:
        for e in stack:
            card = e["card"]
            if card in back and card in INFLUENCE_VALUE:
                e["value"] = INFLUENCE_VALUE[card]
            elif card is None and e.get("copy_of") in back:
                # A Palanque copy holds the original's value at copy time (multipliers included).
                old = INFLUENCE_VALUE[back[e["copy_of"]]]
                e["value"] = e["value"] * INFLUENCE_VALUE[e["copy_of"]] // old
    for p, bid in enumerate(s.bids):
        if p != seat and bid is not None:
            s.bids[p] = rng.randrange(0, s.money[p] // 100 + 1) * 100


def _brasilis_reveals(ev: Event, seat: Seat | None) -> bool:
    public = ("news_revealed", "faces_revealed", "bids_revealed", "aids_drawn", "game_over")
    if ev["type"] in public:
        return True
    mine = seat is not None and ev["visible_to"] is not None and seat in ev["visible_to"]
    # Its own draws, and its own random loss in a Revolution (the seed differs between worlds).
    return ev["type"] in ("dealt", "news_offered", "extra_vote", "news_lost") and mine


def _brasilis_zones(s: BrasilisState) -> tuple[Counter[str], Counter[str], Counter[str]]:
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


def _brasilis_invariants(s: BrasilisState) -> None:
    assert s.bank + sum(s.money) == TOTAL_MONEY, "money is created or lost"
    assert min(s.money) >= 0 and s.bank >= 0, "negative money"
    power, news, extra = _brasilis_zones(s)
    assert power == Counter(POWER_IDS), "a Power card is lost or duplicated"
    assert news == Counter(NEWS_IDS), "a News card is lost or duplicated"
    assert extra == Counter(EXTRA_VOTE_IDS), "an Extra Vote is lost or duplicated"


def _brasilis_act(state: BrasilisState, seat: Seat, rng: random.Random) -> Action:
    """The random player, plus the trade proposals and acceptances it never makes."""
    random_player = GAMES["brasilis"].random_player
    if (
        state.phase == "dispute"
        and state.options.get("trading")
        and not state.traded
        and not state.passed[seat]
    ):
        others = [t for t in range(state.n) if t != seat and not state.passed[t]]
        if others and state.hands[seat] and rng.random() < 0.2:
            return {"propose": {"to": rng.choice(others), "cards": [state.hands[seat][0]]}}
    if state.phase == "trade_reply":
        return {"accept": rng.random() < 0.5, "cards": []}
    return random_player(state, seat, rng)


_brasilis_options = st.fixed_dictionaries(
    {},
    optional={
        "less_strategy": st.booleans(),
        "media_control": st.booleans(),
        "trading": st.booleans(),
        "more_your_way": st.fixed_dictionaries(
            {}, optional={"rounds": st.integers(1, 4), "hand_size": st.integers(2, 7)}
        ),
        # A Lawyer (and a Palanque) from the first round: their decisions occur at once.
        "scenario": st.just({"aids": ["lawyer", "palanque", None]}),
    },
)


def _brasilis_fit(options: dict[str, Any], seats: int) -> dict[str, Any]:
    if "scenario" in options:
        aids = options["scenario"]["aids"]
        options = {**options, "scenario": {"aids": (aids + [None] * seats)[:seats]}}
    return options


def _actions(game: str) -> dict[str, Shape]:
    return importlib.import_module(f"{GAMES[game].package}.actions").SHAPES  # type: ignore[no-any-return]


PROFILES: dict[str, Profile] = {
    "brexit": Profile(
        options=st.fixed_dictionaries(
            {},
            optional={
                "start_seat": st.integers(0, 1),
                "max_rounds": st.integers(1, 12),  # B-31: the game also ends at the round limit
                # A stacked deck: a scenario option, as hidden as the deck itself.
                "negotiation_deck": st.just(["NEG_39", "NEG_38", "TAKE_5"]),
            },
        ),
        act=lambda state, seat, rng: GAMES["brexit"].random_player(state, seat, rng),
        invariants=assert_conserved,
        hidden=_brexit_hidden,
        touch_up=_brexit_touch_up,
        reveals=_brexit_reveals,
        shapes=_actions("brexit"),
    ),
    "brasilis": Profile(
        options=_brasilis_options,
        act=_brasilis_act,
        invariants=_brasilis_invariants,
        hidden=_brasilis_hidden,
        touch_up=_brasilis_touch_up,
        reveals=_brasilis_reveals,
        shapes=_actions("brasilis"),
    ),
}

PROFILES.update(
    {
        name: importlib.import_module(f"{info.package}.profile").PROFILE
        for name, info in GAMES.items()
        if name not in PROFILES and importlib.util.find_spec(f"{info.package}.profile")
    }
)
"""The tests' own games (registered by the test settings) bring their profiles along."""

FIT_OPTIONS: dict[str, Callable[[dict[str, Any], int], dict[str, Any]]] = {
    "brasilis": _brasilis_fit,
}


def options_for(game: str, options: dict[str, Any], seats: int) -> dict[str, Any]:
    """``options`` adjusted to the seat count (per-seat scenario lists)."""
    fit = FIT_OPTIONS.get(game)
    return fit(options, seats) if fit else options


def decisions(
    info: GameInfo, seats: int, seed: int, options: dict[str, Any], limit: int = 20_000
) -> Iterator[tuple[LocalMatch[Any], Seat, str]]:
    """Play a random match to its end, yielding (match, seat, kind) before each decision."""
    profile = PROFILES[info.name]
    m = LocalMatch(info.rules, seats, seed, options_for(info.name, options, seats))
    rng = random.Random(seed)
    for _ in range(limit):
        pending = m.pending()
        if not pending:
            return
        p = pending[0]
        yield m, p["seat"], p["kind"]
        m.play(p["seat"], profile.act(m.state, p["seat"], rng))
    raise AssertionError(f"{info.name} did not end within {limit} decisions")


FULL_OPTIONS: dict[str, dict[str, Any]] = {
    "brasilis": {
        "media_control": True,
        "trading": True,
        "scenario": {"aids": ["lawyer", "palanque", "colonel"]},
    },
}
"""Options under which a game's rarer decision kinds occur."""


@functools.cache
def decision_states(game: str, per_kind: int = 4) -> dict[str, list[tuple[Any, Seat]]]:
    """Up to ``per_kind`` (dumped state, seat) pairs for each decision kind random matches reach."""
    info = GAMES[game]
    found: dict[str, list[tuple[Any, Seat]]] = {}
    for seed in range(40):
        seats = info.min_seats + seed % (info.max_seats - info.min_seats + 1)
        options = FULL_OPTIONS.get(game, {}) if seed % 2 else {}
        for m, seat, kind in decisions(info, seats, seed, options):
            states = found.setdefault(kind, [])
            if len(states) < per_kind and random.Random(seed * 7919 + m.version).random() < 0.2:
                states.append((info.rules.dump(m.state), seat))
        if len(found) == len(PROFILES[game].shapes) and all(
            len(s) >= per_kind for s in found.values()
        ):
            break
    return found
