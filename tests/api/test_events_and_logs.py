"""/api/matches/{id}/events/ (per-seat views of the stream) and /logs/ (owner-only stderr)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from games.engine.events import event, private_event
from tests.factories import (
    BotLogFactory,
    BotVersionFactory,
    MatchFactory,
    SeatFactory,
    finish,
    flush,
    outcome_of,
)
from tournaments.play.models import Match

pytestmark = pytest.mark.django_db


def seated_match(owner: Any, *, over: bool = False) -> Match:
    """Seat 0 is ``owner``'s bot, seats 1-2 built-ins; the stream has a public, a seat-0 and a
    hidden event. Running, or ``over``: finished after them (seat 0 first)."""
    m = MatchFactory()
    SeatFactory(match=m, number=0, bot_version=BotVersionFactory(bot__owner=owner))
    SeatFactory(match=m, number=1, bot_version=None, builtin="random")
    SeatFactory(match=m, number=2, bot_version=None, builtin="random")
    events = [
        event("game_started", {"seats": 3}),
        private_event("dealt", {"hand": ["ACE"]}, to=[0], redacted={"seat": 0, "count": 1}),
        private_event("deck_shuffled", {"order": ["K", "Q"]}, to=[], redacted={"size": 2}),
    ]
    return finish(m, events=events) if over else flush(m, events)


def payloads(r: Any) -> list[Any]:
    assert r.status_code == 200, r.content
    return [e["payload"] for e in r.data["events"]]


def test_spectator_sees_the_public_view(anon: APIClient, user: Any) -> None:
    m = seated_match(user)
    r = anon.get(f"/api/matches/{m.pk}/events/")
    assert payloads(r) == [{"seats": 3}, {"seat": 0, "count": 1}, {"size": 2}]
    assert [e["version"] for e in r.data["events"]] == [1, 2, 3]
    assert r.data["view"] == {"seats": [], "game_over": False, "deal_over": False}
    assert r.data["format"] == "backroom-match/1" and r.data["next"] is None


def test_owner_gets_their_seats_view_by_default(api: APIClient, user: Any) -> None:
    m = seated_match(user)
    r = api.get(f"/api/matches/{m.pk}/events/")
    assert payloads(r) == [{"seats": 3}, {"hand": ["ACE"]}, {"size": 2}]
    assert r.data["view"]["seats"] == [0]


def test_owner_sees_their_seats_private_events(api: APIClient, user: Any) -> None:
    m = seated_match(user)
    r = api.get(f"/api/matches/{m.pk}/events/?seat=0")
    assert payloads(r) == [{"seats": 3}, {"hand": ["ACE"]}, {"size": 2}]


def test_another_seat_view_is_404_while_running(api_other: APIClient, user: Any) -> None:
    m = seated_match(user)
    assert api_other.get(f"/api/matches/{m.pk}/events/?seat=0").status_code == 404
    assert api_other.get(f"/api/matches/{m.pk}/events/?seat=1").status_code == 404


def test_staff_see_no_hidden_card_before_the_end(api_staff: APIClient, user: Any) -> None:
    m = seated_match(user)
    assert api_staff.get(f"/api/matches/{m.pk}/events/?seat=0").status_code == 404
    assert payloads(api_staff.get(f"/api/matches/{m.pk}/events/"))[1] == {"seat": 0, "count": 1}


def test_everything_is_visible_once_finished(anon: APIClient, user: Any) -> None:
    m = seated_match(user, over=True)
    final = {"outcome": outcome_of([1, 2, 3]), "seed": m.seed}
    full = [{"seats": 3}, {"hand": ["ACE"]}, {"order": ["K", "Q"]}, final]
    assert payloads(anon.get(f"/api/matches/{m.pk}/events/")) == full
    assert payloads(anon.get(f"/api/matches/{m.pk}/events/?seat=1")) == full


def test_after_skips_earlier_events(anon: APIClient, user: Any) -> None:
    m = seated_match(user)
    r = anon.get(f"/api/matches/{m.pk}/events/?after=2")
    assert [e["version"] for e in r.data["events"]] == [3]


@pytest.mark.parametrize(
    ("query", "code"), [("?seat=7", 404), ("?seat=x", 400), ("?after=-1", 400)]
)
def test_bad_event_queries(api: APIClient, user: Any, query: str, code: int) -> None:
    m = seated_match(user)
    assert api.get(f"/api/matches/{m.pk}/events/{query}").status_code == code


def test_logs_are_only_the_users_seats(
    api: APIClient, api_other: APIClient, api_staff: APIClient, anon: APIClient, user: Any
) -> None:
    m = seated_match(user)
    BotLogFactory(match=m, seat=0, version=2, text="mine")
    BotLogFactory(match=m, seat=1, version=2, text="builtin")
    url = f"/api/matches/{m.pk}/logs/"
    assert [x["text"] for x in api.get(url).data["results"]] == ["mine"]
    assert api_other.get(url).data["results"] == []
    # Before the end a log line can quote a hand: staff read them once the match is over.
    assert api_staff.get(url).data["results"] == []
    finish(m)
    assert [x["text"] for x in api_staff.get(url).data["results"]] == ["mine", "builtin"]
    assert anon.get(url).status_code == 401


def test_a_log_line_gives_its_step_and_verdict(api: APIClient, user: Any) -> None:
    m = seated_match(user)
    BotLogFactory(match=m, seat=0, version=2, verdict="crash", text="Traceback ...")
    [line] = api.get(f"/api/matches/{m.pk}/logs/").data["results"]
    assert line == {"seat": 0, "step": 2, "verdict": "crash", "text": "Traceback ..."}
