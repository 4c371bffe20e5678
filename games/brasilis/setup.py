"""Options (variants, scale lengths, scenarios) and the opening events of a match.

A scenario stacks decks and fixes hands, images, money (before or after the
salaries), Fury, piles, aids, the aids of an auction, the wallet order and the
starting round/revealer, so that any rulebook situation (the rulebook's worked
examples included) can be set up exactly. It is recorded in a private event
seen by nobody until the end, and never shown by observe().
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from games.brasilis import flow, pizza
from games.brasilis.cards import (
    AIDS,
    EXTRA_VOTE_IDS,
    FURY_MAX,
    HAND_SIZE,
    IMAGE_MAX,
    INITIAL_SLICES,
    MONEY_UNIT,
    NEWS,
    NEWS_IDS,
    PIZZA_SLICES,
    POWER_IDS,
    POWER_KIND,
    SALARY,
    TOTAL_MONEY,
)
from games.brasilis.fold import emit
from games.brasilis.money import transfer
from games.brasilis.refill import dealt
from games.brasilis.state import State
from games.brasilis.steps import BeforeReveal
from games.engine.errors import BadOptions
from games.engine.events import event, private_event
from games.engine.rng import step_rng
from games.engine.types import Event

ENGINE_VERSION = "brasilis-3"
"""brasilis-3: the deck's rebuilds, the reveals, the aids and revolution losses keyed by what
they draw (games/engine/rng.py), the state counting them and each seat's decisions (so
brasilis-2 snapshots, keyed by this version, are not loaded); stored events mean what they
meant: every stream folds as before."""
MIN_SEATS, MAX_SEATS = 3, 6

DEFAULTS: dict[str, Any] = {
    "less_strategy": False,
    "media_control": False,
    "trading": False,
    "more_your_way": None,
    "image_max": IMAGE_MAX,
    "fury_max": FURY_MAX,
    "scenario": None,
}
MORE_YOUR_WAY = ("rounds", "salary", "hand_size")
SCENARIO_KEYS = (
    "news_deck",
    "power_deck",
    "hands",
    "images",
    "money",
    "fury",
    "wallet_order",
    "round",
    "revealer",
    "piles",
    "aids",
    "reveal_in_order",
    "auction_aids",
    "money_before_salary",
)


def _int(value: object, name: str, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise BadOptions(f"option {name!r} must be an integer from {low} to {high}, not {value!r}")
    return value


def _at_least(value: object, name: str, low: int) -> int:
    """A whole number from ``low`` up, whose ceiling another check sets and names."""
    if type(value) is not int or value < low:
        raise BadOptions(f"option {name!r} must be a whole number from {low}, not {value!r}")
    return value


def _bool(value: object, name: str) -> bool:
    if type(value) is not bool:
        raise BadOptions(f"option {name!r} must be true or false, not {value!r}")
    return value


def _per_seat(value: object, name: str, seats: int) -> list[Any]:
    if not isinstance(value, list) or len(value) != seats:
        raise BadOptions(f"scenario {name!r} must be a list with one entry per seat ({seats})")
    return list(value)


def validate(seats: int, options: Mapping[str, Any] | None) -> dict[str, Any]:
    if type(seats) is not int or not MIN_SEATS <= seats <= MAX_SEATS:
        raise BadOptions(f"Bra$ilis is for {MIN_SEATS} to {MAX_SEATS} politicians, not {seats!r}")
    given = dict(options or {})
    unknown = sorted(set(given) - set(DEFAULTS))
    if unknown:
        raise BadOptions(
            f"unknown option(s) {', '.join(map(repr, unknown))}; known: {', '.join(DEFAULTS)}"
        )
    out = {**DEFAULTS, **given}
    for name in ("less_strategy", "media_control", "trading"):
        _bool(out[name], name)
    out["image_max"] = _int(out["image_max"], "image_max", 1, 20)
    out["fury_max"] = _int(out["fury_max"], "fury_max", 1, 100)
    mine = out["more_your_way"]
    if mine is not None:
        if not isinstance(mine, Mapping) or set(mine) - set(MORE_YOUR_WAY):
            raise BadOptions(
                f"option 'more_your_way' must be null or an object with keys {', '.join(MORE_YOUR_WAY)}"
            )
        mine = dict(mine)
        # No fixed ceiling: how many rounds the News deck can serve is S-38's to say, for
        # this table and variant (a fixed 12 refused 13-15 with 3 politicians, which 46 serve).
        mine["rounds"] = _at_least(
            mine.get("rounds", PIZZA_SLICES - INITIAL_SLICES[seats]), "more_your_way.rounds", 1
        )
        mine["salary"] = _int(mine.get("salary", SALARY), "more_your_way.salary", 0, 1000)
        if mine["salary"] % MONEY_UNIT:
            raise BadOptions("option 'more_your_way.salary' must be a multiple of 100")
        mine["hand_size"] = _int(
            mine.get("hand_size", HAND_SIZE[seats]), "more_your_way.hand_size", 1, 8
        )
        out["more_your_way"] = mine
    if out["scenario"] is not None:
        out["scenario"] = _scenario(seats, out["scenario"], _rounds(seats, out))
    _check_news_suffice(seats, out)
    return out


def _rounds(seats: int, opts: Mapping[str, Any]) -> int:
    """The game's rounds: S-1's for the table, or More Your Way's."""
    default = PIZZA_SLICES - INITIAL_SLICES[seats]
    rounds: int = (opts["more_your_way"] or {}).get("rounds", default)
    return rounds


def _check_news_suffice(seats: int, opts: dict[str, Any]) -> None:
    """S-38: nothing starts that the News deck cannot finish.

    Each round sets aside X news (X + 1 with Media Control) and the immediate
    REVOLUTION card may draw one more; news fixed in scenario piles are not in the deck.
    """
    per_round = seats + (1 if opts["media_control"] else 0)
    sc = opts["scenario"] or {}
    deck = len(NEWS) - sum(1 for pile in sc.get("piles", []) for c in pile if c in NEWS)
    first = sc.get("round", 1)
    rounds = _rounds(seats, opts)
    played = max(0, rounds - first + 1)
    if played * per_round + 1 > deck:
        most = (deck - 1) // per_round + first - 1
        variant = " with Media Control" if opts["media_control"] else ""
        raise BadOptions(
            f"{rounds} rounds need up to {played * per_round + 1} news but the News deck holds "
            f"{deck}: at most {most} rounds with {seats} politicians{variant} (S-38)"
        )


def _power_ids(tokens: object, name: str, taken: set[str]) -> list[str]:
    """Card ids from ids ("P_07") or kinds ("2", "x0", "reposition"), none used twice."""
    if not isinstance(tokens, list):
        raise BadOptions(f"scenario {name!r} must be a list of Power card ids or kinds")
    found = []
    for token in tokens:
        if type(token) is not str:
            raise BadOptions(
                f"scenario {name!r}: a card id or kind is a string, not {token!r}"[:300]
            )
        if token in POWER_KIND:
            card = token
        else:
            free = [c for c in POWER_IDS if POWER_KIND[c] == token and c not in taken]
            if not free:
                raise BadOptions(f"scenario {name!r}: no Power card of kind {token!r} left")
            card = free[0]
        if card in taken:
            raise BadOptions(f"scenario {name!r}: card {card!r} is used twice")
        taken.add(card)
        found.append(card)
    return found


def _scenario(seats: int, raw: object, rounds: int) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise BadOptions("option 'scenario' must be an object")
    unknown = sorted(set(raw) - set(SCENARIO_KEYS))
    if unknown:
        raise BadOptions(
            f"unknown scenario key(s) {', '.join(map(repr, unknown))}; known: {', '.join(SCENARIO_KEYS)}"
        )
    sc: dict[str, Any] = {}
    taken: set[str] = set()
    if raw.get("hands") is not None:
        sc["hands"] = [
            None if h is None else _power_ids(h, f"hands[{i}]", taken)
            for i, h in enumerate(_per_seat(raw["hands"], "hands", seats))
        ]
    if raw.get("power_deck") is not None:
        sc["power_deck"] = _power_ids(raw["power_deck"], "power_deck", taken)
    used_news: set[str] = set()
    if raw.get("piles") is not None:
        piles = _per_seat(raw["piles"], "piles", seats)
        for pile in piles:
            if not isinstance(pile, list):
                raise BadOptions("scenario 'piles' must hold one list of News ids per seat")
            for card in pile:
                if type(card) is not str:
                    raise BadOptions(f"scenario 'piles': a News id is a string, not {card!r}"[:300])
                if (card not in NEWS and card not in EXTRA_VOTE_IDS) or card in used_news:
                    raise BadOptions(f"scenario 'piles': unknown or repeated card {card!r}")
                used_news.add(card)
        sc["piles"] = [list(p) for p in piles]
    if raw.get("news_deck") is not None:
        deck = raw["news_deck"]
        if (
            not isinstance(deck, list)
            or any(type(c) is not str for c in deck)
            or any(c not in NEWS or c in used_news for c in deck)
            or len(set(deck)) != len(deck)
        ):
            raise BadOptions(
                "scenario 'news_deck' must list distinct News ids not already in piles"
            )
        sc["news_deck"] = list(deck)
    if raw.get("images") is not None:
        sc["images"] = [
            _int(v, "scenario.images", -20, 20) for v in _per_seat(raw["images"], "images", seats)
        ]
    for key in ("money_before_salary", "money"):
        if raw.get(key) is not None:
            sc[key] = _money(raw[key], key, seats)
    if raw.get("fury") is not None:
        sc["fury"] = _int(raw["fury"], "scenario.fury", 0, 100)
    if raw.get("wallet_order") is not None:
        order = raw["wallet_order"]
        # Integers only: 1.0 and true sort like 1, then fail as list indices mid-match.
        if (
            not isinstance(order, list)
            or any(type(rank) is not int for rank in order)
            or sorted(order) != list(range(seats))
        ):
            raise BadOptions(f"scenario 'wallet_order' must be a permutation of 0..{seats - 1}")
        sc["wallet_order"] = list(order)
    if raw.get("round") is not None:
        sc["round"] = _int(raw["round"], "scenario.round", 1, rounds)  # a round the game has
    if raw.get("revealer") is not None:
        sc["revealer"] = _int(raw["revealer"], "scenario.revealer", 0, seats - 1)
    if raw.get("aids") is not None:
        aids = _per_seat(raw["aids"], "aids", seats)
        if any(a is not None and a not in AIDS for a in aids) or len([a for a in aids if a]) != len(
            {a for a in aids if a}
        ):
            raise BadOptions(
                f"scenario 'aids' must give distinct aids from {AIDS} (or null) per seat"
            )
        sc["aids"] = aids
    if raw.get("auction_aids") is not None:
        sc["auction_aids"] = _auction_aids(raw["auction_aids"], seats, rounds)
    if raw.get("reveal_in_order") is not None:
        sc["reveal_in_order"] = _bool(raw["reveal_in_order"], "scenario.reveal_in_order")
    return sc


def _money(value: object, name: str, seats: int) -> list[int]:
    money = [_int(v, f"scenario.{name}", 0, TOTAL_MONEY) for v in _per_seat(value, name, seats)]
    if any(m % MONEY_UNIT for m in money) or sum(money) > TOTAL_MONEY:
        raise BadOptions(
            f"scenario {name!r} must be multiples of 100 totalling at most $6,000 (taken from the bank)"
        )
    return money


def _auction_aids(value: object, seats: int, rounds: int) -> dict[str, list[str]]:
    """Round number -> the aids shown at that round's auction, instead of a random draw (S-21)."""
    shown = min(seats - 1, len(AIDS))
    wrong = (
        f"scenario 'auction_aids' must map round numbers from 2 to {rounds} to {shown} distinct aids "
        f"from {AIDS} (X - 1 with {seats} politicians, S-21)"
    )
    if not isinstance(value, Mapping):
        raise BadOptions(wrong)
    out: dict[str, list[str]] = {}
    for key, aids in value.items():
        number = str(key)
        # ASCII digits: "²" is a digit to str.isdigit, and no int.
        if not (number.isascii() and number.isdigit()) or not 2 <= int(number) <= rounds:
            raise BadOptions(wrong)
        if (
            not isinstance(aids, list)
            or len(aids) != shown
            or len(set(aids)) != shown
            or any(a not in AIDS for a in aids)
        ):
            raise BadOptions(wrong)
        out[str(int(number))] = list(aids)
    return out


def _shuffled(rng: random.Random, cards: list[str]) -> list[str]:
    cards = list(cards)
    rng.shuffle(cards)
    return cards


def setup(state: State, seats: int, seed: int, options: Mapping[str, Any] | None) -> list[Event]:
    """Fold the opening events into the fresh ``state`` and return them (up to the first decision)."""
    opts = validate(seats, options)
    sc: dict[str, Any] = opts["scenario"] or {}
    rng = step_rng(seed, 0)
    out: list[Event] = []
    mine = opts["more_your_way"] or {}
    public = {k: v for k, v in opts.items() if k != "scenario"}
    started = {
        "seats": seats,
        "options": public,
        "engine_version": ENGINE_VERSION,
        "rounds": mine.get("rounds", PIZZA_SLICES - INITIAL_SLICES[seats]),
        "salary": mine.get("salary", SALARY),
        "hand_size": mine.get("hand_size", HAND_SIZE[seats]),
        "image_max": opts["image_max"],
        "fury_max": opts["fury_max"],
        "bank": TOTAL_MONEY,
        "extra_votes": EXTRA_VOTE_IDS,
    }
    emit(state, out, event("game_started", started))
    if sc:
        emit(state, out, private_event("scenario", {"scenario": sc}, to=[], redacted={}))
    order = sc.get("wallet_order") or _shuffled_seats(rng, seats)
    emit(state, out, event("wallet_order", {"order": order, "chief": order[0]}))  # S-3

    hands: list[list[str] | None] = sc.get("hands") or [None] * seats
    fixed = {c for h in hands if h for c in h}
    stacked: list[str] = sc.get("power_deck", [])
    rest = _shuffled(rng, [c for c in POWER_IDS if c not in fixed and c not in stacked])
    dealt = sum(state.hand_size for h in hands if h is None)
    power = [c for h in hands if h for c in h] + rest[:dealt] + stacked + rest[dealt:]
    emit(
        state,
        out,
        private_event("power_shuffled", {"order": power}, to=[], redacted={"size": len(power)}),
    )
    piles: list[list[str]] = sc.get("piles") or [[] for _ in range(seats)]
    in_piles = {c for p in piles for c in p}
    top_news: list[str] = sc.get("news_deck", [])
    news = [c for p in piles for c in p if c in NEWS] + top_news
    news += _shuffled(rng, [c for c in NEWS_IDS if c not in in_piles and c not in top_news])
    emit(
        state,
        out,
        private_event("news_shuffled", {"order": news}, to=[], redacted={"size": len(news)}),
    )

    for i in range(seats):
        seat = (state.chief + i) % seats
        hand = hands[seat]
        if hand is not None:
            ev = private_event(
                "hand_fixed",
                {"seat": seat, "cards": hand},
                to=[seat],
                redacted={"seat": seat, "count": len(hand)},
            )
            emit(state, out, ev)
    for i in range(seats):
        seat = (state.chief + i) % seats
        if hands[seat] is None:
            _deal_random(state, out, seat)
    for seat, pile in enumerate(piles):
        if pile:
            emit(
                state,
                out,
                private_event(
                    "pile_fixed",
                    {"seat": seat, "cards": pile},
                    to=[seat],
                    redacted={"seat": seat, "count": len(pile)},
                ),
            )
    for seat, value in enumerate(sc.get("images") or []):
        if value:
            emit(state, out, event("image", {"seat": seat, "value": value, "reason": "scenario"}))
    if sc.get("fury"):
        emit(state, out, event("fury", {"value": sc["fury"]}))

    if sc.get("money_before_salary") is not None:
        _set_money(state, out, sc["money_before_salary"])
    step = pizza.start_round(state, out, sc.get("round", 1), sc.get("revealer"))
    if sc.get("money") is not None:
        _set_money(state, out, sc["money"])
    if sc.get("aids") is not None:  # the aids are held already: no auction this round
        for seat, aid in enumerate(sc["aids"]):
            if aid:
                emit(state, out, event("aid_granted", {"aid": aid, "seat": seat}))
        step = BeforeReveal()
    flow.proceed(state, out, rng, step)
    return out


def _set_money(state: State, out: list[Event], targets: list[int]) -> None:
    """Move money to and from the bank until each politician holds their scenario amount."""
    for seat, target in enumerate(targets):
        if state.money[seat] > target:
            transfer(state, out, seat, None, state.money[seat] - target, "scenario")
    for seat, target in enumerate(targets):
        if state.money[seat] < target:
            transfer(state, out, None, seat, target - state.money[seat], "scenario")


def _shuffled_seats(rng: random.Random, seats: int) -> list[int]:
    order = list(range(seats))
    rng.shuffle(order)
    return order


def _deal_random(state: State, out: list[Event], seat: int) -> None:
    """Deal from the top of the deck; fixed hands were already taken out of it."""
    cards = state.power_deck[: state.hand_size]
    emit(state, out, dealt(seat, cards))
