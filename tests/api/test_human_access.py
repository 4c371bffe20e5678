"""Who sees and acts for a person's seat, over every door (tournaments/play/visibility.py).

A real Brexit match waits for its person in seat 0 (built-in bots in the others). The
person sees their seat as a bot's owner sees their bot's; anyone else, staff included,
gets a 404 for that seat's view and its actions, and no page or endpoint shows them the
person's hand.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.test import Client

from games.engine.registry import get
from tests.factories import UserFactory
from tournaments.play import runner, selectors, services
from tournaments.play.models import Match
from tournaments.play.selectors.replay import state_at

pytestmark = pytest.mark.django_db

ROLES = ("anon", "other", "person", "staff")
PERSON_ONLY = "404 404 200 404"
ALL_OK = "200 200 200 200"
DOORS = [
    ("/api/matches/{m}/actions/", "401 404 200 404"),
    ("/matches/{m}/play/", PERSON_ONLY),
    ("/api/matches/{m}/", ALL_OK),
    ("/api/matches/{m}/events/", ALL_OK),
    ("/api/matches/{m}/events/?seat=0", PERSON_ONLY),
    ("/api/matches/{m}/state/?view=seat0", PERSON_ONLY),
    ("/api/matches/{m}/download/?view=seat0", PERSON_ONLY),
    ("/api/matches/{m}/state/?view=public", ALL_OK),
    ("/matches/{m}/", ALL_OK),
    ("/matches/{m}/?view=seat0", PERSON_ONLY),
    ("/matches/{m}/board/?view=seat0", PERSON_ONLY),
    ("/matches/{m}/log/?view=seat0&after=0", PERSON_ONLY),
    ("/matches/{m}/board/?view=public", ALL_OK),
]


@pytest.fixture
def waiting() -> tuple[Match, dict[str, Any]]:
    person = UserFactory()
    users = {
        "anon": None,
        "other": UserFactory(),
        "person": person,
        "staff": UserFactory(is_staff=True),
    }
    match = services.create_challenge(
        user=person,
        game="brexit",
        seats=[{"human": True}, {"builtin": "random"}, {"builtin": "greedy"}],
        seed=9,
        queue=False,
    )
    runner.run_match(uuid.UUID(str(match.pk)))
    match.refresh_from_db()
    assert match.status == "waiting"
    return match, users


def client(user: Any) -> Client:
    c = Client()
    if user is not None:
        c.force_login(user)
    return c


@pytest.mark.parametrize(("url", "statuses"), DOORS)
def test_every_door_keeps_a_persons_seat_theirs(
    waiting: tuple[Match, dict[str, Any]], url: str, statuses: str
) -> None:
    match, users = waiting
    hand = get("brexit").rules.observe(state_at(match, match.last_version), 0)["hand"]
    assert hand
    got = []
    for role in ROLES:
        r = client(users[role]).get(url.format(m=match.pk))
        got.append(str(r.status_code))
        if role != "person" and r.status_code == 200:
            body = r.content.decode()
            shown = [card for card in hand if f'"{card}"' in body or f">{card}<" in body]
            assert not shown, f"{role} sees the person's hand {shown} at {url}"
    assert " ".join(got) == statuses, url


def test_only_the_person_may_act_and_staff_only_watch(
    waiting: tuple[Match, dict[str, Any]],
) -> None:
    match, users = waiting
    assert selectors.may_act(users["person"], match, 0)
    assert not selectors.may_act(users["person"], match, 1)  # a bot's seat
    for role in ("anon", "other", "staff"):
        assert not selectors.may_act(users[role], match, 0)
        r = client(users[role]).post(
            f"/api/matches/{match.pk}/actions/",
            {"action": {"place": []}},
            content_type="application/json",
        )
        assert r.status_code in ((401, 403) if role == "anon" else (404,)), role
    page = client(users["person"]).get(f"/matches/{match.pk}/").content.decode()
    assert 'id="your-seat"' in page and "Your move" in page
    assert "waiting for" in page
    spectator = client(users["other"]).get(f"/matches/{match.pk}/").content.decode()
    assert 'id="your-seat"' not in spectator
