"""Which matches go to the archive, and when: ``manage.py archive`` compacts them.

A match is compacted once it is over (finished or aborted: the platform appends nothing to
it any more) and every reader of the global feed has read past its last event (the feed
serves the hot table; an archived match's events are no longer in it). Without any
checkpoint nobody has read anything yet, and nothing is compacted. Matches go oldest first
(their ids are UUIDv7, so in the order they were created), ``BATCH`` in a transaction,
with the newest dictionary of its game; a game without one gets one trained on the first
matches it compacts. replays/archive.py does the compaction itself and its checks.

The events table is partitioned by month of match id (replays/partitions.py). A match of a
past month keeps its hot rows once archived: when every match of that month's partition is
archived, the partition is emptied whole (replays.archive.release_partition), which leaves
no dead rows to vacuum. A match of the current month, or of the default partition, has its
hot rows deleted as it is archived: its partition is still being written.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.db import connection

from replays import archive, partitions
from tournaments.play.models import Match

TRAIN_ON = 200
"""How many of a game's matches its dictionary is trained on."""

BATCH = 50
"""Matches compacted in one transaction: a few statements for all of them (one match a
transaction compacted about 2,000 events a second, slower than matches are played)."""

_COMPACTABLE = """
SELECT m.id, m.game FROM tournaments_match m
JOIN replays_event e ON e.stream_id = m.id AND e.version = m.last_version
WHERE m.status IN (%s, %s) AND m.last_version > 0
  AND NOT EXISTS (SELECT 1 FROM replays_archive a WHERE a.stream_id = m.id)
  AND e.position <= (SELECT min(position) FROM replays_feed_checkpoint)
ORDER BY m.id LIMIT %s
"""


def compactable(limit: int) -> list[tuple[uuid.UUID, str]]:
    """Up to ``limit`` matches ready for the archive, oldest first, with their games."""
    with connection.cursor() as cur:
        cur.execute(_COMPACTABLE, [Match.Status.FINISHED, Match.Status.ABORTED, limit])
        return [(row[0], row[1]) for row in cur.fetchall()]


@dataclass
class Compacted:
    matches: dict[str, int] = field(default_factory=dict)
    events: int = 0
    dictionaries: list[str] = field(default_factory=list)
    released: dict[str, int] = field(default_factory=dict)
    """Partitions emptied whole, with how many hot rows each."""
    kept: dict[str, str] = field(default_factory=dict)
    """Partitions all archived but not emptied, and why (a later run tries again)."""


def _partition(match_id: uuid.UUID) -> str | None:
    """The month partition of a UUIDv7 match id (None for another kind of id)."""
    if match_id.version != 7:
        return None
    made = datetime.fromtimestamp(int.from_bytes(match_id.bytes[:6]) / 1000, UTC)
    return partitions.name_of(made)


def compact(limit: int = 1000) -> Compacted:
    """Compact up to ``limit`` matches that are ready; returns how many of each game."""
    done = Compacted()
    ready = compactable(limit)
    dictionaries: dict[str, archive.Dictionary] = {}
    for game in sorted({game for _, game in ready}):
        found = archive.dictionary(game)
        if found is None:
            samples = [archive.hot_rows(m) for m, g in ready if g == game][:TRAIN_ON]
            found = archive.train(game, samples)
            done.dictionaries.append(game)
        dictionaries[game] = found
    past = set(partitions.past_months())
    for game, dictionary in dictionaries.items():
        matches = [m for m, g in ready if g == game]
        for keep_hot in (False, True):
            these = [m for m in matches if (_partition(m) in past) is keep_hot]
            for start in range(0, len(these), BATCH):
                batch = these[start : start + BATCH]
                done.events += archive.compact_many(batch, dictionary, keep_hot=keep_hot)
                done.matches[game] = done.matches.get(game, 0) + len(batch)
    for name in sorted(past):
        if archive.fully_archived(name):
            try:
                done.released[name] = archive.release_partition(name)
            except archive.ArchiveError as exc:  # a reader's old snapshot, or a mismatch
                done.kept[name] = str(exc)
    return done
