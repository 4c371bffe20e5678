"""A bot's matches and its verdict counts, kept by the database (migration 0027).

A bot's seat carries its bot and its match's creation time, which the lists' bot filter and a
bot's page walk (``seat_bot_newest``; their plans: test_match_lists.py), and a bot's counts of
faults by verdict (FaultCount) are kept by triggers on the fault table: whatever writes the
rows, the copies and counts follow.
"""

from __future__ import annotations

import datetime as dt
import importlib
import re
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

from tests.factories import BotVersionFactory, MatchFactory, SeatFactory
from tournaments import migrations
from tournaments.play import keyset, selectors
from tournaments.play.models import Fault, FaultCount, Match, Seat

pytestmark = pytest.mark.django_db


def _copies(seat: Any) -> tuple[Any, Any]:
    return tuple(Seat.objects.filter(pk=seat.pk).values_list("bot_id", "match_created_at")[0])


def test_a_bot_s_seat_carries_its_bot_and_its_match_s_creation_time() -> None:
    seat: Any = SeatFactory()
    match = seat.match
    assert seat.bot_id is None  # the database's, not Python's: read back
    assert _copies(seat) == (seat.bot_version.bot_id, match.created_at)
    builtin = SeatFactory(match=match, bot_version=None, builtin="random")
    assert _copies(builtin) == (None, None)
    # The match's creation time moved (as an import or a test may): its seats follow.
    later = match.created_at + dt.timedelta(hours=1)
    Match.objects.filter(pk=match.pk).update(created_at=later)
    assert _copies(seat) == (seat.bot_version.bot_id, later)
    # Django saves every column, the copies as it read them (None here): they stay right.
    seat.rank = 1
    seat.save()
    assert _copies(seat) == (seat.bot_version.bot_id, later)
    # Another version in the seat: the copy is the new version's bot.
    other: Any = BotVersionFactory(bot__game=match.game)
    Seat.objects.filter(pk=seat.pk).update(bot_version=other)
    assert _copies(seat) == (other.bot_id, later)


def _fault(seat: Any, step: int, verdict: str) -> Fault:
    return Fault(
        bot_id=seat.bot_version.bot_id,
        bot_version=seat.bot_version,
        match=seat.match,
        seat=seat.number,
        step=step,
        asked_step=step - 1,
        verdict=verdict,
    )


def test_a_bot_s_fault_counts_follow_its_faults_and_its_page_shows_them_as_they_may_be_seen() -> (
    None
):
    version: Any = BotVersionFactory(bot__is_public=True)
    bot, owner = version.bot, version.bot.owner
    played = SeatFactory(bot_version=version, match__game=bot.game)
    smoke = SeatFactory(
        bot_version=version, match=MatchFactory(game=bot.game, validation_of=version)
    )
    Fault.objects.bulk_create(
        [_fault(played, 3, "timeout"), _fault(played, 5, "timeout"), _fault(played, 8, "crash")]
    )
    # A flush replayed after a lost lease writes its faults again: each decision counts once.
    Fault.objects.bulk_create(
        [_fault(played, 8, "crash"), _fault(smoke, 2, "crash")], ignore_conflicts=True
    )
    counts = FaultCount.objects.filter(bot=bot).values_list("verdict", "smoke", "count")
    assert sorted(counts) == [("crash", False, 1), ("crash", True, 1), ("timeout", False, 2)]
    assert selectors.bot_verdicts(owner, bot) == [("crash", 2), ("timeout", 2)]
    # Another user's smoke matches are hidden from others, and so are their verdicts.
    assert selectors.bot_verdicts(None, bot) == [("crash", 1), ("timeout", 2)]
    page = Client().get(f"/bots/{bot.pk}/").content.decode()
    assert re.search(r"<th>crash</th><td[^>]*>1<", page) and "<th>timeout</th>" in page
    # The match's deletion takes its faults, and their counts, away.
    played.match.delete()
    assert selectors.bot_verdicts(owner, bot) == [("crash", 1)]
    assert selectors.bot_verdicts(None, bot) == []


def test_a_bot_seated_twice_in_a_match_is_listed_once_and_its_pages_stay_full(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its seats' index meets such a match once per seat: a page shows it once and still
    holds a page's worth of matches, and following ``next`` visits each match once."""
    version: Any = BotVersionFactory(bot__is_public=True)
    twice = []
    for n in range(7):
        match = MatchFactory(game=version.bot.game)
        SeatFactory(match=match, number=0, bot_version=version)
        if n % 2 == 0:  # self-play: both seats its
            SeatFactory(match=match, number=1, bot_version=version)
        twice.append(match)
    expected = [str(m.pk) for m in sorted(twice, key=lambda m: (m.created_at, m.pk), reverse=True)]
    api, url, seen, sizes = APIClient(), f"/api/matches/?bot={version.bot_id}&limit=2", [], []
    while url:
        body = api.get(url).json()
        seen += [m["id"] for m in body["results"]]
        sizes.append(len(body["results"]))
        url = body["next"]
    assert seen == expected and sizes == [2, 2, 2, 1]
    first = keyset.page(selectors.matches(bot=version.bot_id), None, 3)
    assert [str(m.pk) for m in first.matches] == expected[:3] and first.older
    with connection.cursor() as cur:  # the database agrees: 11 seats of the bot's, 7 matches
        cur.execute("SELECT count(*) FROM tournaments_seat WHERE bot_id = %s", [version.bot_id])
        assert cur.fetchone()[0] == 11
    # A private bot's filter finds nothing for others (as before: not named to them).
    version.bot.is_public = False
    version.bot.save()
    assert api.get(f"/api/matches/?bot={version.bot_id}").json()["results"] == []


# Found by its name, not its number: a number may change when branches meet.
migration = importlib.import_module(
    "tournaments.migrations."
    + next(Path(migrations.__file__).parent.glob("*_seat_bot_newest_fault_counts.py")).stem
)


def test_the_migration_copies_the_seats_there_are_and_counts_their_faults() -> None:
    """Seats and faults written before the migration: its backfills give the seats their
    copies and the bots their counts, as the triggers would have."""
    seat: Any = SeatFactory()
    builtin = SeatFactory(match=seat.match, bot_version=None, builtin="random")
    Fault.objects.bulk_create([_fault(seat, 3, "timeout"), _fault(seat, 4, "timeout")])
    with connection.cursor() as cur:  # as they were before 0027
        cur.execute("SET LOCAL session_replication_role = replica")  # no trigger fires
        cur.execute("UPDATE tournaments_seat SET bot_id = NULL, match_created_at = NULL")
        cur.execute("SET LOCAL session_replication_role = origin")
        cur.execute("DELETE FROM tournaments_faultcount")
        assert _copies(seat) == (None, None)
        cur.execute(migration.SEAT_BACKFILL)
        cur.execute(migration.FAULT_COUNTS_BACKFILL)
    assert _copies(seat) == (seat.bot_version.bot_id, seat.match.created_at)
    assert _copies(builtin) == (None, None)
    assert selectors.bot_verdicts(None, seat.bot_version.bot) == [("timeout", 2)]
