"""Who sees what, checked on real matches by searching every response for hidden card ids.

While a match runs: everyone gets the public view, a bot's owner also their own
seat's view, and nobody (staff included) another seat's hidden cards, through
any page, API endpoint or download. Once it is over every view opens, except
the bots' logs and act messages (owner and staff).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client

from games.brasilis.cards import EXTRA_VOTE_IDS, NEWS, POWER_KIND
from games.brexit.cards import AGENDAS, COUNTRIES, NAME
from games.engine.events import view as event_view
from replays import store
from tests.factories import UserFactory
from tests.viewer.conftest import play, running_copy
from tournaments.play.models import Match
from tournaments.play.selectors import replay

pytestmark = pytest.mark.django_db

CARD_IDS = {
    "brexit": set(NAME) | set(COUNTRIES) | set(AGENDAS),
    "brasilis": set(POWER_KIND) | set(NEWS) | set(EXTRA_VOTE_IDS),
}


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def hidden_from(match: Match, seat: int | None) -> set[str]:
    """Card ids in the stream that ``seat`` (None: a spectator) has never been shown."""
    ids = CARD_IDS[match.game]
    private: set[str] = set()
    shown: set[str] = set()
    for stored in store.read(match.id):
        ev = stored.as_engine_event()
        shown |= set(strings(event_view(ev, seat)["payload"]))
        private |= set(strings(ev["payload"]))
    return (private & ids) - shown


def leaked(body: bytes, hidden: set[str]) -> set[str]:
    text = body.decode()
    return {
        c for c in hidden if re.search(rf"(?<![A-Za-z0-9_]){re.escape(c)}(?![A-Za-z0-9_])", text)
    }


@pytest.fixture(params=["brexit", "brasilis"])
def running(request: pytest.FixtureRequest, owner: Any) -> Match:
    finished = play(request.param, 4, None, seed=11)
    return running_copy(finished, finished.last_version * 2 // 3, owner=owner)


def client_for(user: Any | None) -> Client:
    c = Client()
    if user is not None:
        c.force_login(user)
    return c


def public_urls(m: Match) -> list[str]:
    out = [
        f"/api/matches/{m.pk}/download/",
        f"/matches/{m.pk}/log/?after=0",
        f"/api/matches/{m.pk}/events/",
    ]
    for step in (1, m.last_version // 2, m.last_version):
        out += [
            f"/matches/{m.pk}/?step={step}",
            f"/matches/{m.pk}/board/?step={step}",
            f"/api/matches/{m.pk}/state/?step={step}",
        ]
    return out


def test_while_running_no_response_shows_a_hidden_card(running: Match, owner: Any) -> None:
    assert len(hidden_from(running, None)) > 5  # hands and shuffled decks are there to be leaked
    staff = UserFactory(is_staff=True)
    for user in (None, owner, staff):
        c = client_for(user)
        # The events API shows the owner their own seat by default; nobody else's.
        hidden = hidden_from(running, 0 if user is owner else None)
        for url in public_urls(running):
            r = c.get(url)
            assert r.status_code == 200, (url, r.status_code)
            assert not leaked(r.content, hidden), (user, url, leaked(r.content, hidden))


def test_while_running_the_owner_sees_their_seat_and_nothing_more(
    running: Match, owner: Any
) -> None:
    c = client_for(owner)
    hidden = hidden_from(running, 0)
    own_hand = set(
        strings(
            replay.observation(running, replay.state_at(running, running.last_version), _seat0())[
                "hand"
            ]
        )
    )
    assert own_hand  # the seat's own cards are what the owner must see
    step = running.last_version
    for url in (
        f"/matches/{running.pk}/?step={step}&view=seat0",
        f"/matches/{running.pk}/board/?step={step}&view=seat0",
        f"/api/matches/{running.pk}/state/?step={step}&view=seat0",
        f"/api/matches/{running.pk}/download/?view=seat0",
        f"/matches/{running.pk}/log/?after=0&view=seat0",
    ):
        r = c.get(url)
        assert r.status_code == 200, url
        assert not leaked(r.content, hidden), (url, leaked(r.content, hidden))
    page = c.get(f"/matches/{running.pk}/board/?step={step}&view=seat0").content
    assert leaked(page, own_hand) == own_hand


def _seat0() -> Any:
    from tournaments.play.visibility import View

    return View("seat0", 0)


@pytest.mark.parametrize("who", ["anon", "owner", "staff"])
def test_while_running_other_seats_and_all_cards_are_closed(
    running: Match, owner: Any, who: str
) -> None:
    user = {"anon": None, "owner": owner, "staff": UserFactory(is_staff=True)}[who]
    c = client_for(user)
    closed = ["seat1", "all"] + (["seat0"] if who != "owner" else [])
    for view in closed:
        for url in (
            f"/matches/{running.pk}/?view={view}",
            f"/matches/{running.pk}/board/?view={view}",
            f"/matches/{running.pk}/log/?view={view}",
            f"/api/matches/{running.pk}/state/?view={view}",
            f"/api/matches/{running.pk}/download/?view={view}",
        ):
            assert c.get(url).status_code == 404, (who, url)
    for seat in (1, 2, 3) if who != "anon" else (0, 1):
        assert c.get(f"/matches/{running.pk}/act/{seat}/?step=10").status_code == 404


def test_the_viewer_lists_only_open_views(running: Match, owner: Any) -> None:
    html = client_for(None).get(f"/matches/{running.pk}/").content.decode()
    assert 'value="public"' in html and 'value="seat0"' not in html and 'value="all"' not in html
    html = client_for(owner).get(f"/matches/{running.pk}/").content.decode()
    assert 'value="seat0"' in html and 'value="seat1"' not in html


def test_after_the_end_every_view_opens_but_logs_stay_with_owner_and_staff(owner: Any) -> None:
    m = play("brexit", 3, owner, seed=5)
    hidden = hidden_from(m, None)
    anon = client_for(None)
    everything = anon.get(f"/api/matches/{m.pk}/state/?step={m.last_version // 2}&view=all")
    assert everything.status_code == 200
    body = anon.get(f"/api/matches/{m.pk}/download/").content
    assert leaked(body, hidden) == hidden  # the whole match, seed and all
    assert anon.get(f"/matches/{m.pk}/?view=seat2").status_code == 200
    step = _asked(m, 0)
    assert anon.get(f"/matches/{m.pk}/act/0/?step={step}").status_code == 404
    assert client_for(UserFactory()).get(f"/matches/{m.pk}/act/0/?step={step}").status_code == 404
    for user in (owner, UserFactory(is_staff=True)):
        r = client_for(user).get(f"/matches/{m.pk}/act/0/?step={step}")
        assert r.status_code == 200
        assert r.json()["type"] == "act" and r.json()["seat"] == 0


def _asked(m: Match, seat: int) -> int:
    """A step at which ``seat`` was asked to act."""
    for ev in store.read(m.id):
        if ev.metadata.get("actor") == seat and ev.type not in ("bot_verdict",):
            return ev.version - 1
    raise AssertionError("seat never acted")
