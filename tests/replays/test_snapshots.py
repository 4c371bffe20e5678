"""Snapshot + fold of the rest equals a full fold; snapshots are disposable."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest

from replays import snapshots, store
from replays.models import Snapshot
from replays.store import NewEvent

pytestmark = pytest.mark.django_db


@dataclass
class Tally:
    total: int = 0
    seen: list[int] = field(default_factory=list)


class TallyRules:
    """A minimal foldable: sums the events' numbers."""

    engine_version = "tally/1"
    folds = 0

    def new_state(self) -> Tally:
        return Tally()

    def fold(self, state: Tally, event: Any) -> Tally:
        self.folds += 1
        state.total += event["payload"]["n"]
        state.seen.append(event["payload"]["n"])
        return state

    def dump(self, state: Tally) -> dict[str, Any]:
        return {"total": state.total, "seen": state.seen}

    def load(self, data: dict[str, Any]) -> Tally:
        return Tally(total=data["total"], seen=list(data["seen"]))


@pytest.fixture
def stream() -> uuid.UUID:
    stream_id = uuid.uuid4()
    store.append(stream_id, [NewEvent(type="n", payload={"n": i}) for i in range(1, 51)], 0)
    return stream_id


def test_snapshot_plus_fold_equals_full_fold(stream: uuid.UUID) -> None:
    rules = TallyRules()
    full, _ = snapshots.state_at(rules, stream, version=37)
    snapshots.take(rules, stream, version=30)
    rules.folds = 0
    from_snapshot, reached = snapshots.state_at(rules, stream, version=37)
    assert (from_snapshot, reached) == (full, 37)
    assert rules.folds == 7  # only the events after the snapshot


def test_a_snapshot_above_the_asked_version_is_not_used(stream: uuid.UUID) -> None:
    rules = TallyRules()
    snapshots.take(rules, stream, version=40)
    state, reached = snapshots.state_at(rules, stream, version=10)
    assert (state.total, reached) == (55, 10)


def test_a_snapshot_from_another_engine_version_is_ignored(stream: uuid.UUID) -> None:
    Snapshot.objects.create(
        stream_id=stream, version=50, state_version="tally/0", state={"bogus": True}
    )
    state, _ = snapshots.state_at(TallyRules(), stream)
    assert state.total == sum(range(1, 51))


def test_snapshots_can_be_dropped_and_rebuilt(stream: uuid.UUID) -> None:
    rules = TallyRules()
    full, _ = snapshots.state_at(rules, stream)
    assert snapshots.rebuild(rules, stream, every=20) == 2
    assert sorted(Snapshot.objects.filter(stream_id=stream).values_list("version", flat=True)) == [
        20,
        40,
    ]
    assert snapshots.state_at(rules, stream)[0] == full
    assert snapshots.drop(stream) == 2
    assert snapshots.state_at(rules, stream)[0] == full


def test_fold_steps_gives_every_version_as_a_fold_to_it_would(stream: uuid.UUID) -> None:
    rules = TallyRules()
    seen = {
        v: rules.dump(state)["total"] for v, state in snapshots.fold_steps(rules, stream, 0, 50)
    }
    assert sorted(seen) == list(range(51))
    for version in (0, 1, 17, 50):
        alone, _ = snapshots.state_at(rules, stream, version=version)
        assert seen[version] == alone.total


def test_fold_steps_folds_once_from_the_snapshot_below_its_first_version(
    stream: uuid.UUID,
) -> None:
    rules = TallyRules()
    snapshots.take(rules, stream, version=20)
    rules.folds = 0
    versions = [v for v, _ in snapshots.fold_steps(rules, stream, 25, 40)]
    assert versions == list(range(25, 41))
    assert rules.folds == 20  # 21..40, each once
    # Past the stream's end it stops where the stream does.
    assert [v for v, _ in snapshots.fold_steps(rules, stream, 48, 999)] == [48, 49, 50]
