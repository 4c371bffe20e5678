"""How long a bot thinks is its owner's business: a seat's ``time_used_ms``, and a verdict's
``elapsed_ms`` and ``bank_ms``, follow the rule of its logs (tournaments/play/visibility.py,
``log_seats``): the bot's owner always, staff once the match (and its duplicate deal) is over,
nobody else. Checked at every door that carries them, on the access matrix's world (a running,
a finished and an aborted match whose seat 0 is the owner's bot).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.test_access_matrix import ROLES, _client, world  # noqa: F401
from tournaments.play.models import Match, Seat

pytestmark = pytest.mark.django_db

# Times no page could show by chance, per seat: the owner's bot, then two built-ins.
TIMES = {0: 987_651, 1: 876_541, 2: 765_431}

# Each door, and what it carries of the bots' times: the seats' totals, the verdicts' own times
# (elapsed_ms, bank_ms), or neither (the pages must show none of them).
DOORS = [
    ("/api/matches/{m}/", "seats"),
    ("/api/matches/?bot={bot}", "seats"),
    ("/admin/tournaments/match/{m}/change/", "seats"),
    ("/api/matches/{m}/events/", "verdicts"),
    ("/api/matches/{m}/download/", "verdicts"),
    ("/matches/{m}/", ""),
    ("/matches/{m}/log/?after=0", ""),
]


def _readable(role: str, seat: int, over: bool) -> bool:
    return (role == "owner" and seat == 0) or (role == "staff" and over)


@pytest.mark.parametrize("role", ROLES)
def test_time_used_is_the_bots_owners_and_staffs_once_over(
    world: dict[str, Any],  # noqa: F811
    role: str,
) -> None:
    m: Match = world["match"]
    over = world["state"] != "running"
    for seat, ms in TIMES.items():
        Seat.objects.filter(match=m, number=seat).update(time_used_ms=ms)
    c = _client(world["users"][role])
    wrong: list[tuple[object, ...]] = []
    for template, carries in DOORS:
        url = template.format(**world["fill"])
        r = c.get(url)
        if r.status_code != 200:
            continue  # who may open the door at all: test_access_matrix.py
        body = r.content.decode()
        for seat, ms in TIMES.items():
            if (str(ms) in body) != (carries == "seats" and _readable(role, seat, over)):
                wrong.append((url, seat, "shown" if str(ms) in body else "missing"))
        # The crash verdict of seat 0 (the owner's bot) carries its time.
        if ('"elapsed_ms"' in body) != (carries == "verdicts" and _readable(role, 0, over)):
            wrong.append((url, "elapsed_ms"))
    assert wrong == []


def test_a_seat_the_viewer_may_not_time_says_null(world: dict[str, Any]) -> None:  # noqa: F811
    m: Match = world["match"]
    Seat.objects.filter(match=m).update(time_used_ms=1234)
    seats = _client(world["users"]["owner"]).get(f"/api/matches/{m.pk}/").json()["seats"]
    assert [s["time_used_ms"] for s in seats] == [1234, None, None, None]
