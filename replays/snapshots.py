"""Snapshots: disposable caches of a stream's folded state.

The state at version N is the newest snapshot at or below N (written by the
same engine version) plus the events after it. Snapshots can be dropped at any
time and rebuilt from the events, which stay the only source of truth.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any, Protocol, TypeVar

from games.engine.platform_events import PLATFORM_EVENTS
from replays import store
from replays.models import Snapshot

S = TypeVar("S")


class Foldable(Protocol[S]):
    """What snapshots need of a game's rules (games.engine.rules.Rules provides it)."""

    engine_version: str

    def new_state(self) -> S: ...
    def fold(self, state: S, event: Any) -> S: ...
    def dump(self, state: S) -> dict[str, Any]: ...
    def load(self, data: dict[str, Any]) -> S: ...


def state_at(rules: Foldable[S], stream_id: uuid.UUID, version: int | None = None) -> tuple[S, int]:
    """The folded state at ``version`` (the latest when None), and the version reached."""
    snapshots = Snapshot.objects.filter(stream_id=stream_id, state_version=rules.engine_version)
    if version is not None:
        snapshots = snapshots.filter(version__lte=version)
    snapshot = snapshots.order_by("-version").first()
    if snapshot is None:
        state, reached = rules.new_state(), 0
    else:
        state, reached = rules.load(snapshot.state), snapshot.version
    for ev in store.read(stream_id, from_version=reached + 1, to_version=version):
        if ev.type not in PLATFORM_EVENTS:  # a verdict or the result changes no game state
            state = rules.fold(state, ev.as_engine_event())
        reached = ev.version
    return state, reached


def state_at_step(
    rules: Foldable[S], stream_id: uuid.UUID, version: int, every: int = 50
) -> tuple[S, int]:
    """The state at ``version``, storing a snapshot at each multiple of ``every`` it folds past.

    Stored events never change, so a snapshot of any stored version stays valid:
    the first viewer of a step leaves snapshots behind, and every later request
    folds at most ``every`` events, whichever step it asks for.
    """
    state, reached = _nearest(rules, stream_id, version)
    for ev in store.read(stream_id, from_version=reached + 1, to_version=version):
        if ev.type not in PLATFORM_EVENTS:
            state = rules.fold(state, ev.as_engine_event())
        reached = ev.version
        if reached % every == 0:
            Snapshot.objects.get_or_create(
                stream_id=stream_id,
                state_version=rules.engine_version,
                version=reached,
                defaults={"state": rules.dump(state)},
            )
    return state, reached


def _nearest(rules: Foldable[S], stream_id: uuid.UUID, version: int) -> tuple[S, int]:
    """The newest snapshot at or below ``version`` (of this engine), or the new state."""
    snapshot = (
        Snapshot.objects.filter(
            stream_id=stream_id, state_version=rules.engine_version, version__lte=version
        )
        .order_by("-version")
        .first()
    )
    if snapshot is None:
        return rules.new_state(), 0
    return rules.load(snapshot.state), snapshot.version


def fold_steps(
    rules: Foldable[S], stream_id: uuid.UUID, first: int, last: int
) -> Iterator[tuple[int, S]]:
    """The state at every version from ``first`` to ``last`` (both included, as far as the stream
    goes), folded once from the newest snapshot at or below ``first``.

    A reader of every step of a stream that no longer grows (a finished match's viewer) folds it
    once this way instead of once per step from a snapshot. The state yielded is the one being
    folded: use it (dump, observe) before asking for the next, which changes it.
    """
    state, reached = _nearest(rules, stream_id, first)
    if reached >= first:
        yield reached, state
    for ev in store.read(stream_id, from_version=reached + 1, to_version=last):
        if ev.type not in PLATFORM_EVENTS:
            state = rules.fold(state, ev.as_engine_event())
        reached = ev.version
        if reached >= first:
            yield reached, state


def take(rules: Foldable[S], stream_id: uuid.UUID, version: int | None = None) -> int:
    """Store a snapshot at ``version`` (the latest when None); returns its version."""
    state, reached = state_at(rules, stream_id, version)
    Snapshot.objects.update_or_create(
        stream_id=stream_id,
        state_version=rules.engine_version,
        version=reached,
        defaults={"state": rules.dump(state)},
    )
    return reached


def drop(stream_id: uuid.UUID | None = None) -> int:
    """Delete snapshots (of one stream, or all); returns how many."""
    snapshots = (
        Snapshot.objects.all()
        if stream_id is None
        else Snapshot.objects.filter(stream_id=stream_id)
    )
    deleted, _ = snapshots.delete()
    return deleted


def rebuild(rules: Foldable[S], stream_id: uuid.UUID, every: int = 200) -> int:
    """Drop a stream's snapshots and write one every ``every`` events; returns how many."""
    drop(stream_id)
    state, written = rules.new_state(), 0
    for ev in store.read(stream_id):
        if ev.type not in PLATFORM_EVENTS:
            state = rules.fold(state, ev.as_engine_event())
        if ev.version % every == 0:
            Snapshot.objects.create(
                stream_id=stream_id,
                state_version=rules.engine_version,
                version=ev.version,
                state=rules.dump(state),
            )
            written += 1
    return written
