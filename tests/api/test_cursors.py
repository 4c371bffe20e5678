"""A match list's cursor is opaque but travels through the client, which may change it: whatever
it is changed to, the list answers 200 or a 400 that names the cursor, never a 500.

Every door that takes a cursor is tried: the API's match list, plain and under each filter
(a bot's list is read from its seats, tournaments/play/keyset.py), and the site's match list.
A cursor names a creation time as the list wrote it, in UTC; one carrying any other offset (one
past Postgres' ±15:59 reached the database and failed there) is one the list did not make.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tests.factories import BotVersionFactory, MatchFactory, SeatFactory
from tournaments.competition.models import Ladder, Season

pytestmark = pytest.mark.django_db

MATCH = "00000000-0000-0000-0000-000000000000"


def _cursor(raw: str) -> str:
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


TAMPERED = {
    "offset past Postgres' bound": _cursor(f"o|2026-12-01T00:00:00+23:59|{MATCH}"),
    "negative offset past the bound": _cursor(f"n|2026-12-01T00:00:00-16:00|{MATCH}"),
    "offset within the bound": _cursor(f"o|2026-12-01T00:00:00+02:00|{MATCH}"),
    "offset with seconds": _cursor(f"o|2026-12-01T00:00:00+00:00:01|{MATCH}"),
    "the first instant, east of UTC": _cursor(f"o|0001-01-01T00:00:00+01:00|{MATCH}"),
    "the last instant, west of UTC": _cursor(f"n|9999-12-31T23:59:59-01:00|{MATCH}"),
    "a Z for UTC": _cursor(f"o|2026-12-01T00:00:00Z|{MATCH}"),
    "the first instant in UTC": _cursor(f"o|0001-01-01T00:00:00+00:00|{MATCH}"),
    "the last instant in UTC": _cursor(f"n|9999-12-31T23:59:59.999999+00:00|{MATCH}"),
    "a date alone": _cursor(f"o|2026-12-01|{MATCH}"),
    "no id": _cursor("o|2026-12-01T00:00:00+00:00|"),
    "a fourth part": _cursor(f"o|2026-12-01T00:00:00+00:00|{MATCH}|x"),
    "not base64": "%%%",
    "a NUL inside": _cursor(f"o|2026-12-01T00:00:00+00:00\x00|{MATCH}"),
    "empty after decoding": _cursor(""),
}


@pytest.fixture
def doors(user: Any) -> list[str]:
    """The API's match list under each filter, and the site's match list, with a match on each."""
    ladder = Ladder.objects.create(name="l", game="brexit", seats=3)
    season = Season.objects.create(name="s", game="brexit", seats=3)
    version = BotVersionFactory(bot__owner=user, bot__is_public=True)
    match = MatchFactory(ladder=ladder, season=season)
    SeatFactory(match=match, number=0, bot_version=version)
    filters = [
        "",
        "game=brexit",
        "status=queued",
        f"bot={version.bot_id}",
        f"ladder={ladder.pk}",
        f"season={season.pk}",
        f"game=brexit&bot={version.bot_id}",
    ]
    return [f"{door}?{query}" for door in ("/api/matches/", "/matches/") for query in filters]


@pytest.mark.parametrize("name", sorted(TAMPERED))
def test_a_tampered_cursor_is_a_page_or_a_clear_400_never_a_500(
    doors: list[str], api: APIClient, name: str
) -> None:
    wrong = []
    for door in doors:
        for client in (APIClient(), api, Client()):
            response = client.get(door, {"cursor": TAMPERED[name]})
            if response.status_code == 200:
                continue
            said = response.content.decode(errors="replace")
            if response.status_code != 400 or "next/previous links" not in said:
                wrong.append((door, response.status_code, said[:200]))
    assert wrong == [], name


@pytest.mark.parametrize(
    "name",
    ["offset past Postgres' bound", "negative offset past the bound", "offset within the bound"],
)
def test_a_cursor_whose_time_is_not_in_utc_is_a_400_that_names_the_cursor(
    doors: list[str], name: str
) -> None:
    """The list writes its cursors in UTC: any other offset was not written by it."""
    for door in doors:
        response = Client().get(door, {"cursor": TAMPERED[name]})
        assert response.status_code == 400, (door, response.status_code)
        if door.startswith("/api/"):
            assert "next/previous links" in str(response.json()["cursor"]), door
