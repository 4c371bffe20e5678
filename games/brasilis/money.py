"""The bank and every payment: no debts (S-6), CPMV when the bank is short (S-7)."""

from __future__ import annotations

from games.brasilis import tiebreak
from games.brasilis.fold import emit
from games.brasilis.state import State
from games.engine.events import event
from games.engine.types import Event


def _paid(src: int | None, dst: int | None, amount: int, reason: str) -> Event:
    return event("paid", {"from": src, "to": dst, "amount": amount, "reason": reason})


def bank_pays(state: State, out: list[Event], seat: int, amount: int, reason: str) -> None:
    """The bank pays ``amount``; what it lacks comes from the richest others (CPMV, S-7)."""
    from_bank = min(amount, state.bank)
    if from_bank:
        emit(state, out, _paid(None, seat, from_bank, reason))
    missing = amount - from_bank
    while missing > 0:
        others = [s for s in range(state.n) if s != seat and state.money[s] > 0]
        if not others:
            return  # nobody else has money: the payee gets only what was found
        richest = max(state.money[s] for s in others)
        payer = tiebreak.suffers(state, [s for s in others if state.money[s] == richest])
        taken = min(missing, state.money[payer])
        emit(state, out, _paid(payer, seat, taken, "cpmv"))
        missing -= taken


def pay_bank(state: State, out: list[Event], seat: int, amount: int, reason: str) -> None:
    """An owed payment: the politician pays what they can and the rest is forgiven (S-6)."""
    paid = min(amount, state.money[seat])
    if paid:
        emit(state, out, _paid(seat, None, paid, reason))


def transfer(
    state: State, out: list[Event], src: int | None, dst: int | None, amount: int, reason: str
) -> None:
    """A voluntary payment, already checked to be affordable in full (S-6)."""
    if amount:
        emit(state, out, _paid(src, dst, amount, reason))
