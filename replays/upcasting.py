"""Payload upcasters: stored payloads are never rewritten; old versions are upgraded on read.

An upcaster is a pure function from a payload at ``from_version`` to the
payload at ``from_version + 1``. They chain: a v1 payload read when v3 is
current passes through the v1 and v2 upcasters in turn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Payload = dict[str, Any]
Upcaster = Callable[[Payload], Payload]

_UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def upcaster(event_type: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
    """Register ``fn`` as the upgrade of ``event_type`` payloads from ``from_version``."""

    def register(fn: Upcaster) -> Upcaster:
        key = (event_type, from_version)
        if key in _UPCASTERS:
            raise ValueError(f"an upcaster for {event_type} v{from_version} is already registered")
        _UPCASTERS[key] = fn
        return fn

    return register


def unregister(event_type: str, from_version: int) -> None:
    """Remove an upcaster (tests register temporary ones)."""
    _UPCASTERS.pop((event_type, from_version), None)


def upcast(event_type: str, schema_version: int, payload: Payload) -> tuple[int, Payload]:
    """The payload upgraded through every registered step, with its final version."""
    while (step := _UPCASTERS.get((event_type, schema_version))) is not None:
        payload = step(payload)
        schema_version += 1
    return schema_version, payload


def has_upcasters() -> bool:
    return bool(_UPCASTERS)


def current(event_type: str, schema_version: int) -> bool:
    """Whether a payload of this version needs no upcasting (a reader may then skip decoding it)."""
    return (event_type, schema_version) not in _UPCASTERS
