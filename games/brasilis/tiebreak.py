"""The tie-break (S-4): better image, then more money, then the wallet order (S-3).

The wallet order is strict, so the tie-break always names exactly one seat.
"""

from __future__ import annotations

from collections.abc import Iterable

from games.brasilis.state import State


def key(state: State, seat: int) -> tuple[int, int, int]:
    """Sort key: smallest = benefited."""
    return (-state.image[seat], -state.money[seat], state.wallet_rank[seat])


def order(state: State, seats: Iterable[int]) -> list[int]:
    """Seats from most to least benefited."""
    return sorted(seats, key=lambda s: key(state, s))


def benefited(state: State, seats: Iterable[int]) -> int:
    return min(seats, key=lambda s: key(state, s))


def suffers(state: State, seats: Iterable[int]) -> int:
    """When the tie-break decides who loses out (CPMV), the least benefited suffers (S-4)."""
    return max(seats, key=lambda s: key(state, s))
