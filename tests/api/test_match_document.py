"""/api/matches/{id}/events/ serves the backroom-match/1 document, in pages, filtered by who asks."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from rest_framework.test import APIClient

from games.engine.registry import get
from games.engine.types import Event
from tests.factories import BotVersionFactory, MatchFactory, SeatFactory, UserFactory, finish, flush
from tournaments.play.models import Match

pytestmark = pytest.mark.django_db

BOT = """
import random, sys
def act(observation, legal):
    print("thinking", file=sys.stderr)
    if legal["actions"]:
        return random.choice(legal["actions"])
    return {"place": []}
"""


def pages(client: APIClient, url: str) -> Iterator[dict[str, Any]]:
    """Every page, following ``next``."""
    next_url: str | None = url
    while next_url is not None:
        r = client.get(next_url)
        assert r.status_code == 200, r.content[:300]
        page = r.json()
        yield page
        next_url = page["next"]


def joined(client: APIClient, url: str) -> dict[str, Any]:
    """The pages joined into one document (each page repeats the header)."""
    all_pages = list(pages(client, url))
    headers = [{k: p[k] for k in ("format", "match")} for p in all_pages]
    assert all(h == headers[0] for h in headers)
    return {**headers[0], "events": [ev for p in all_pages for ev in p["events"]]}


def test_play_out_and_the_api_give_the_same_document(
    tmp_path: Path, client_for: Callable[[Any], APIClient]
) -> None:
    bot = tmp_path / "my_bot.py"
    bot.write_text(BOT)
    out = tmp_path / "match.json"
    seats = ["--seat", str(bot), "--seat", "builtin:greedy", "--seat", "builtin:random"]
    call_command("play", "--game", "brexit", *seats, "--seed", "11", "--out", str(out), "--persist")
    written = json.loads(out.read_text())
    match = Match.objects.get()
    assert written["match"]["id"] == str(match.pk)
    owner = get_user_model().objects.get(username="local")
    url = f"/api/matches/{match.pk}/events/?limit=40"
    served = joined(client_for(owner), url)
    assert len(written["events"]) > 2 * 40  # so the document came in several pages
    assert served == written


def test_pages_follow_each_other(client_for: Callable[[Any], APIClient]) -> None:
    match = MatchFactory()
    SeatFactory(match=match, number=0, bot_version=None, builtin="random")
    SeatFactory(match=match, number=1, bot_version=None, builtin="random")
    events: list[Event] = [
        {"type": "n", "actor": None, "payload": {"n": i}, "visible_to": None, "redacted": None}
        for i in range(6)
    ]
    finish(match, events=events)  # the seventh: match_finished
    client = APIClient()
    url = f"/api/matches/{match.pk}/events/"
    split = list(pages(client, url + "?limit=3"))
    assert [[e["version"] for e in p["events"]] for p in split] == [[1, 2, 3], [4, 5, 6], [7]]
    assert "after=3" in split[0]["next"] and "limit=3" in split[0]["next"]
    whole = client.get(url).json()
    assert whole["next"] is None
    assert [e for p in split for e in p["events"]] == whole["events"]
    assert client.get(url + "?limit=100000").status_code == 400


# Hidden cards before the end: a running Brexit match, seat 0 the owner's, seat 1 another user's.


def strings(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(strings(v) for v in value)) if value else set()
    return set()


def hidden_from(events: list[Event], seats: set[int]) -> set[str]:
    """Strings (card ids) only in payloads that ``seats`` may not see."""
    seen: set[str] = set()
    unseen: set[str] = set()
    for ev in events:
        visible = ev["visible_to"] is None or bool(seats & set(ev["visible_to"]))
        (seen if visible else unseen).update(strings(ev["payload"]))
        seen.update(strings(ev["redacted"]))
    return unseen - seen


@pytest.fixture
def running(client_for: Callable[[Any], APIClient]) -> dict[str, Any]:
    owner, rival = UserFactory(), UserFactory()
    match = MatchFactory(game="brexit")
    SeatFactory(match=match, number=0, bot_version=BotVersionFactory(bot__owner=owner))
    SeatFactory(match=match, number=1, bot_version=BotVersionFactory(bot__owner=rival))
    SeatFactory(match=match, number=2, bot_version=None, builtin="random")
    events = get("brexit").rules.setup(3, 7, None)
    flush(match, events)
    return {
        "match": match,
        "events": events,
        "clients": {
            "anonymous": (APIClient(), set()),
            "owner": (client_for(owner), {0}),
            "rival": (client_for(rival), {1}),
            "staff": (client_for(UserFactory(is_staff=True)), set()),
        },
    }


@pytest.mark.parametrize("role", ["anonymous", "owner", "rival", "staff"])
def test_nobody_sees_another_seats_hidden_cards(running: dict[str, Any], role: str) -> None:
    client, own = running["clients"][role]
    secret = hidden_from(running["events"], own)
    mine = hidden_from(running["events"], set()) - secret  # what only this caller's seats see
    assert any(s.startswith("NEG_") for s in secret)  # other seats' hands are among them
    text = json.dumps(client.get(f"/api/matches/{running['match'].pk}/events/").json())
    assert not {s for s in secret if s in text}
    assert all(s in text for s in mine)


def test_the_search_finds_hidden_cards_once_finished(running: dict[str, Any]) -> None:
    finish(running["match"])
    secret = hidden_from(running["events"], set())
    text = json.dumps(APIClient().get(f"/api/matches/{running['match'].pk}/events/").json())
    assert secret and all(s in text for s in secret)
