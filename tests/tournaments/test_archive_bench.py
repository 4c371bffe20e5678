"""manage.py bench archive at its smallest: what it computes, checked against the tables."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.db import connection

from tournaments.play.models import Match

pytestmark = pytest.mark.django_db

FIGURES = {
    "bench",
    "game",
    "seats",
    "bots",
    "archive_bytes_per_event",
    "archived_read_ratio",
    "target_archive_bytes_per_event",
    "target_archived_read_ratio",
    "matches",
    "events",
    "events_per_match",
    "played_in_s",
    "hot_bytes_per_event",
    "document_bytes_per_event",
    "compacted_events_per_s",
    "step_ms",
    "page_ms",
}


ARCHIVE_BYTES = (
    "SELECT sum(pg_total_relation_size(t)) FROM unnest(ARRAY['replays_archive',"
    " 'replays_archived_event', 'replays_archive_dictionary']) t"
)


def _one(sql: str) -> int:
    with connection.cursor() as cur:
        cur.execute(sql)
        return int(cur.fetchone()[0])


@pytest.mark.parametrize("game", ["brexit", "brasilis"])
def test_bench_archive_compacts_real_matches_and_reports_what_they_cost(game: str) -> None:
    empty = _one(ARCHIVE_BYTES)  # what the tables take before anything is in them
    out = io.StringIO()
    call_command(
        "bench", "archive", "--in-place", "--game", game, "--archive-matches", "2", stdout=out
    )
    figures = json.loads(out.getvalue())["games"][game]
    assert set(figures) == FIGURES
    matches = Match.objects.filter(game=game, status=Match.Status.FINISHED)
    assert figures["matches"] == matches.count() == 2
    # Every event of the matches it played went to the archive, and none is left hot.
    events = sum(m.last_version for m in matches)
    assert figures["events"] == events
    assert _one("SELECT count(*) FROM replays_event") == 0
    assert _one("SELECT count(*) FROM replays_archive") == 2
    assert figures["document_bytes_per_event"] == round(
        _one("SELECT sum(octet_length(document)) FROM replays_archive") / events, 1
    )
    archived = _one(ARCHIVE_BYTES) - empty
    assert figures["archive_bytes_per_event"] == round(archived / events, 1)
    assert 0 < figures["document_bytes_per_event"] < figures["archive_bytes_per_event"]
    assert figures["hot_bytes_per_event"] > figures["document_bytes_per_event"]
    ratios = [figures[k]["archived"] / figures[k]["hot"] for k in ("step_ms", "page_ms")]
    assert figures["archived_read_ratio"] == pytest.approx(max(ratios), rel=0.05, abs=0.02)
