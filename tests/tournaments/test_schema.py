"""Storage choices that keep result and heartbeat writes cheap (migration 0004)."""

from __future__ import annotations

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db


def _indexes(table: str) -> set[str]:
    with connection.cursor() as cur:
        cur.execute("SELECT indexdef FROM pg_indexes WHERE tablename = %s", [table])
        return {row[0].split(" USING ")[1] for row in cur.fetchall()}


@pytest.mark.parametrize("table", ["tournaments_match", "tournaments_seat"])
def test_updated_tables_leave_room_for_hot_updates(table: str) -> None:
    with connection.cursor() as cur:
        cur.execute("SELECT reloptions FROM pg_class WHERE relname = %s", [table])
        assert cur.fetchone() == (["fillfactor=80"],)


def test_no_index_that_nothing_reads_is_maintained() -> None:
    assert "btree (status varchar_pattern_ops)" not in _indexes("tournaments_match")
    # Reads by status (the reaper, the scheduler, the lists' filter) lead on the list's index.
    assert "btree (status, created_at DESC, id DESC)" in _indexes("tournaments_match")
    assert "btree (status)" not in _indexes("tournaments_match")
    seat = _indexes("tournaments_seat")
    assert "btree (match_id, number)" in seat and "btree (match_id)" not in seat
