"""Applying one event to the state: a dict of tiny functions, one per event type.

Folding never decides and never draws: every outcome (shuffle order, drawn
card, chosen seat) is already in the payload. Keep these functions small; the
replay rate of the whole platform depends on them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.brasilis.cards import AIDS
from games.brasilis.state import State, effective, entry
from games.engine.types import Event

P = dict[str, Any]


def _game_started(s: State, p: P) -> None:
    n = s.n = p["seats"]
    s.options = p["options"]
    s.rounds, s.salary, s.hand_size = p["rounds"], p["salary"], p["hand_size"]
    s.image_max, s.fury_max = p["image_max"], p["fury_max"]
    s.engine_version = p["engine_version"]
    s.bank = p["bank"]
    s.image, s.money = [0] * n, [0] * n
    s.hands = [[] for _ in range(n)]
    s.stacks = [[] for _ in range(n)]
    s.piles = [[] for _ in range(n)]
    s.passed, s.played, s.eligible = [False] * n, [False] * n, [False] * n
    s.bids = [None] * n
    s.wallet_rank = list(range(n))
    s.extra_votes = list(p["extra_votes"])
    s.aid_owner = {a: None for a in AIDS}
    s.aid_used = {a: False for a in AIDS}
    s.asked = [0] * n


def _nothing(s: State, p: P) -> None:
    pass


def _scenario(s: State, p: P) -> None:
    # Kept in the state because deciding needs it (reveal order); observe() never shows it.
    s.options = {**s.options, "scenario": p["scenario"]}


def _wallet_order(s: State, p: P) -> None:
    for rank, seat in enumerate(p["order"]):
        s.wallet_rank[seat] = rank
    s.chief = p["chief"]


def _power_shuffled(s: State, p: P) -> None:
    s.power_deck = list(p["order"])
    if p.get("from_discard"):
        s.power_discard = []
        _count(s, "power")


def _count(s: State, draw: str) -> None:
    s.drawn[draw] = s.drawn.get(draw, 0) + 1


def _revolution(s: State, p: P) -> None:
    _count(s, "revolution")


def _news_shuffled(s: State, p: P) -> None:
    s.news_deck = list(p["order"])


def _dealt(s: State, p: P) -> None:
    cards = p["cards"]
    s.hands[p["seat"]].extend(cards)
    del s.power_deck[: len(cards)]


def _hand_fixed(s: State, p: P) -> None:
    for card in p["cards"]:
        s.power_deck.remove(card)
        s.hands[p["seat"]].append(card)


def _pile_fixed(s: State, p: P) -> None:
    for card in p["cards"]:
        (s.extra_votes if card.startswith("EV") else s.news_deck).remove(card)
        s.piles[p["seat"]].append(card)


def _image(s: State, p: P) -> None:
    s.image[p["seat"]] = p["value"]


def _fury(s: State, p: P) -> None:
    s.fury = p["value"]


def _paid(s: State, p: P) -> None:
    amount, src, dst = p["amount"], p["from"], p["to"]
    if src is None:
        s.bank -= amount
    else:
        s.money[src] -= amount
    if dst is None:
        s.bank += amount
    else:
        s.money[dst] += amount


def _round_started(s: State, p: P) -> None:
    s.round = p["round"]
    s.revealer = p["revealer"]
    s.reveals_done = 0


def _news_set_aside(s: State, p: P) -> None:
    cards = p["cards"]
    s.pool = list(cards)
    del s.news_deck[: len(cards)]


def _awaiting(s: State, p: P) -> None:
    s.phase = p["kind"]
    s.waiting = list(p["seats"])
    for seat in s.waiting:
        s.asked[seat] += 1
    s.traded = p.get("traded", False)


def _aids_drawn(s: State, p: P) -> None:
    s.shown_aids = list(p["aids"])
    s.eligible = [True] * s.n


def _aid_granted(s: State, p: P) -> None:
    s.aid_owner[p["aid"]] = p["seat"]


def _auction_opened(s: State, p: P) -> None:
    s.auction_aid = p["aid"]
    s.bids = [None] * s.n


def _bid(s: State, p: P) -> None:
    seat = p["seat"]
    s.bids[seat] = p["amount"]
    s.waiting.remove(seat)


def _aid_bought(s: State, p: P) -> None:
    aid, seat = p["aid"], p["seat"]
    s.aid_owner[aid] = seat
    s.eligible[seat] = False
    s.shown_aids.remove(aid)
    s.auction_aid = None
    s.bids = [None] * s.n


def _aid_discarded(s: State, p: P) -> None:
    s.shown_aids.remove(p["aid"])
    s.auction_aid = None
    s.bids = [None] * s.n


def _auction_closed(s: State, p: P) -> None:
    s.shown_aids = []
    s.eligible = [False] * s.n


def _extra_vote(s: State, p: P) -> None:
    card = p["card"]
    s.extra_votes.remove(card)
    s.piles[p["seat"]].append(card)


def _aid_used(s: State, p: P) -> None:
    s.aid_used[p["aid"]] = True
    if p["aid"] == "palanque":
        seat = p["seat"]
        original = s.stacks[p["neighbour"]][-1]
        original["locked"] = True
        copy = entry(
            None,
            effective(original),
            seat,
            down=original["down"],
            locked=True,
            known_by=original["known_by"],
        )
        copy["copy_of"] = original["card"]
        s.stacks[seat].append(copy)


def _news_offered(s: State, p: P) -> None:
    s.offered = list(p["cards"])
    for card in p["cards"]:
        s.pool.remove(card)


def _news_revealed(s: State, p: P) -> None:
    card = p["news"]
    source = p["source"]
    if source == "pool":
        s.pool.remove(card)
    elif source == "deck":
        s.news_deck.remove(card)
    else:
        s.offered.remove(card)
        s.pool.extend(s.offered)
        s.offered = []
    s.news = card
    s.revealer = p["revealer"]
    n = s.n
    s.stacks = [[] for _ in range(n)]
    s.passed = [False] * n
    s.played = [False] * n


def _card_played(s: State, p: P) -> None:
    seat, card = p["seat"], p["card"]
    s.hands[seat].remove(card)
    s.stacks[p["target"]].append(entry(card, p["value"], seat, down=p["face_down"]))
    s.played[seat] = True


def _modifier_played(s: State, p: P) -> None:
    seat, card = p["seat"], p["card"]
    s.hands[seat].remove(card)
    s.stacks[p["target"]][-1]["mult"].append(card)
    s.played[seat] = True


def _eliminated(s: State, p: P) -> None:
    seat, card = p["seat"], p["card"]
    s.hands[seat].remove(card)
    gone = s.stacks[p["target"]].pop()
    if gone["down"]:  # S-36: still hidden in the discard until the reveal
        s.discarded_down[gone["card"]] = gone["known_by"]
    s.power_discard.append(gone["card"])
    s.power_discard.extend(gone["mult"])
    s.spent.append(card)
    s.played[seat] = True


def _repositioned(s: State, p: P) -> None:
    seat, card = p["seat"], p["card"]
    s.hands[seat].remove(card)
    s.stacks[p["destination"]].append(s.stacks[p["target"]].pop())
    s.spent.append(card)
    s.played[seat] = True


def _passed(s: State, p: P) -> None:
    s.passed[p["seat"]] = True


def _faces_revealed(s: State, p: P) -> None:
    for stack in s.stacks:
        for e in stack:
            e["down"] = False
    s.discarded_down = {}


def _tie(s: State, p: P) -> None:
    s.tied = list(p["tied"])


def _news_attributed(s: State, p: P) -> None:
    seat = p["seat"]
    s.piles[seat].append(p["news"])
    s.attributed = seat
    s.news = None
    s.tied = []


def _lawyer_used(s: State, p: P) -> None:
    s.aid_used["lawyer"] = True
    s.piles[p["seat"]].remove(p["news"])
    s.news_discard.append(p["news"])


def _news_lost(s: State, p: P) -> None:
    s.piles[p["seat"]].remove(p["card"])
    s.removed.append(p["card"])


def _news_removed(s: State, p: P) -> None:
    s.news = None
    s.removed.append(p["news"])


def _dispute_cleared(s: State, p: P) -> None:
    discard = s.power_discard
    for stack in s.stacks:
        for e in stack:
            if e["card"] is not None:
                discard.append(e["card"])
            discard.extend(e["mult"])
    discard.extend(s.spent)
    s.spent = []
    s.stacks = [[] for _ in range(s.n)]
    s.attributed = None
    s.news = None
    s.reveals_done += 1
    s.revealer = (s.revealer + 1) % s.n


def _round_ended(s: State, p: P) -> None:
    for aid in s.aid_owner:
        s.aid_owner[aid] = None
        s.aid_used[aid] = False
    s.removed.extend(s.pool)
    s.pool = []


def _trade_proposed(s: State, p: P) -> None:
    s.trade = dict(p)


def _trade_answered(s: State, p: P) -> None:
    trade = s.trade
    s.trade = None
    if not p["accepted"] or trade is None:
        return
    src, dst = trade["from"], trade["to"]
    for card in trade["cards"]:
        s.hands[src].remove(card)
        s.hands[dst].append(card)
    for card in p["cards"]:
        s.hands[dst].remove(card)
        s.hands[src].append(card)


def _game_over(s: State, p: P) -> None:
    s.phase = "over"
    s.waiting = []
    s.result = p


FOLDERS: dict[str, Callable[[State, P], None]] = {
    "game_started": _game_started,
    "scenario": _scenario,
    "refill": _nothing,
    "wallet_order": _wallet_order,
    "power_shuffled": _power_shuffled,
    "news_shuffled": _news_shuffled,
    "dealt": _dealt,
    "hand_fixed": _hand_fixed,
    "pile_fixed": _pile_fixed,
    "image": _image,
    "fury": _fury,
    "paid": _paid,
    "round_started": _round_started,
    "news_set_aside": _news_set_aside,
    "awaiting": _awaiting,
    "aids_drawn": _aids_drawn,
    "aid_granted": _aid_granted,
    "auction_opened": _auction_opened,
    "bid": _bid,
    "bids_revealed": _nothing,
    "aid_bought": _aid_bought,
    "aid_discarded": _aid_discarded,
    "auction_closed": _auction_closed,
    "extra_vote": _extra_vote,
    "aid_used": _aid_used,
    "news_offered": _news_offered,
    "news_revealed": _news_revealed,
    "card_played": _card_played,
    "modifier_played": _modifier_played,
    "eliminated": _eliminated,
    "repositioned": _repositioned,
    "passed": _passed,
    "skipped": _nothing,
    "faces_revealed": _faces_revealed,
    "tie": _tie,
    "news_attributed": _news_attributed,
    "lawyer_used": _lawyer_used,
    "lawyer_declined": _nothing,
    "revolution": _revolution,
    "news_lost": _news_lost,
    "news_removed": _news_removed,
    "dispute_cleared": _dispute_cleared,
    "round_ended": _round_ended,
    "trade_proposed": _trade_proposed,
    "trade_answered": _trade_answered,
    "game_over": _game_over,
}


def fold(state: State, ev: Event) -> State:
    FOLDERS[ev["type"]](state, ev["payload"])
    return state


def emit(state: State, out: list[Event], ev: Event) -> None:
    """Fold ``ev`` into the live state and record it: how deciding produces events."""
    FOLDERS[ev["type"]](state, ev["payload"])
    out.append(ev)
