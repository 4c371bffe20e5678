"""Copying a game's plain data (lists, dicts, str, int, float, bool, None) fast.

A state's ``dump`` and ``load`` copy the whole table, and a search copies it for every sample
and rollout: with ``copy.deepcopy`` the copying was half the CPU of a match between search
bots. A pickle round trip makes the same deep copy (shared parts stay shared, dict order is
kept) in C, five to six times faster. Only the engine's own in-memory values go through it;
nothing read from outside is ever unpickled.
"""

from __future__ import annotations

import pickle
from typing import TypeVar

T = TypeVar("T")


def copied(value: T) -> T:
    """A deep copy of ``value``, equal to it and sharing nothing mutable with it."""
    # The bytes were made by the line itself from our own value: nothing untrusted is loaded.
    copy: T = pickle.loads(pickle.dumps(value, pickle.HIGHEST_PROTOCOL))  # noqa: S301
    return copy
