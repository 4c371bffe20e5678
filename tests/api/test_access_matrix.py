"""Who sees what, over every endpoint, page and download that carries a match's data.

One real Brexit game (built-in bots, so real hidden cards) is copied into a running,
a finished and an aborted match; seat 0 is the owner's bot. Each copy carries a
crash verdict whose detail is a traceback marker, a stderr log line marker, and the
bot has a rejected version whose validation error is a marker. For anonymous,
another user, the owner and staff, the table below says the status every URL
answers; every body is then searched for the card ids the role may not see and for
the markers it may not read (tournaments/play/visibility.py is the rule book):

* before the end: the public view for all, the owner's seat for the owner, no other
  seat's card for anyone (staff included);
* once over (finished or aborted): every view open;
* logs (verdict details, stderr, act messages), validation errors and an abort's
  reason: the owner's, and staff's (logs: once over).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client

from games.engine.platform_events import verdict_event
from replays import store
from tests.factories import BotLogFactory, BotVersionFactory, UserFactory, abort, flush
from tests.support.database import shared_rows
from tests.viewer.conftest import play, running_copy
from tests.viewer.test_visibility import hidden_from, leaked, strings
from tournaments.play.models import BotLog, BotVersion, Match, Seat

# One worker builds each state's world once (see world) and runs the tests that read it.
pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("access-matrix")]

TRACE = "SECRET-TRACE Traceback (most recent call last)"
STDERR = "SECRET-STDERR my hand is"
VALIDATION = "SECRET-VALIDATION smoke match, step 4: crash"
REASON = "SECRET-REASON RuntimeError in the platform"
SEED = 7_345_678_901_234_567
ROLES = ("anon", "other", "owner", "staff")
STATES = ("running", "finished", "aborted")

ALL_OK = "200 200 200 200"
OWNER_ONLY = "404 404 200 404"
NOBODY = "404 404 404 404"
LOGGED_IN = "401 200 200 200"
SMOKE = "404 404 200 200"

# url (see _url), then the statuses for anon, other, owner, staff: while running / once over.
TABLE: list[tuple[str, str, str]] = [
    ("/api/matches/?bot={bot}", ALL_OK, ALL_OK),
    ("/api/matches/{m}/", ALL_OK, ALL_OK),
    ("/api/matches/{m}/events/", ALL_OK, ALL_OK),
    ("/api/matches/{m}/events/?seat=0", OWNER_ONLY, ALL_OK),
    ("/api/matches/{m}/events/?seat=1", NOBODY, ALL_OK),
    ("/api/matches/{m}/logs/", LOGGED_IN, LOGGED_IN),
    ("/api/bots/{bot}/", ALL_OK, ALL_OK),
    ("/api/bots/{bot}/versions/", ALL_OK, ALL_OK),
    ("/api/bots/{bot}/versions/{rejected}/", ALL_OK, ALL_OK),
    ("/matches/?bot={bot}", ALL_OK, ALL_OK),
    ("/bots/{bot}/", ALL_OK, ALL_OK),
    # The staff's admin: no seed, options or stderr before the end either.
    ("/admin/tournaments/match/{m}/change/", "302 302 302 200", "302 302 302 200"),
    ("/admin/tournaments/botlog/{log}/change/", "302 302 302 302", "302 302 302 200"),
    # The rejected version's smoke match: its owner's (and staff's), through every door.
    ("/api/matches/{smoke}/", SMOKE, SMOKE),
    ("/api/matches/{smoke}/events/", SMOKE, SMOKE),
    ("/api/matches/{smoke}/state/", SMOKE, SMOKE),
    ("/api/matches/{smoke}/download/", SMOKE, SMOKE),
    ("/matches/{smoke}/", SMOKE, SMOKE),
    ("/matches/{smoke}/board/", SMOKE, SMOKE),
    ("/matches/{smoke}/log/", SMOKE, SMOKE),
    ("/matches/{m}/act/0/?step={asked0}", OWNER_ONLY, "404 404 200 200"),
    ("/matches/{m}/act/1/?step={asked1}", NOBODY, "404 404 404 200"),
]
VIEW_ROWS: list[tuple[str, str, str]] = []
"""Every door that takes a view, through each view: open while the match runs, or not."""
for _view, _running in (
    ("public", ALL_OK),
    ("seat0", OWNER_ONLY),
    ("seat1", NOBODY),
    ("all", NOBODY),
):
    VIEW_ROWS += [
        (f"/api/matches/{{m}}/state/?view={_view}", _running, ALL_OK),
        (f"/api/matches/{{m}}/state/?view={_view}&step={{half}}", _running, ALL_OK),
        (f"/api/matches/{{m}}/download/?view={_view}", _running, ALL_OK),
        (f"/matches/{{m}}/?view={_view}", _running, ALL_OK),
        (f"/matches/{{m}}/?view={_view}&step={{half}}", _running, ALL_OK),
        (f"/matches/{{m}}/board/?view={_view}&step={{half}}", _running, ALL_OK),
        (f"/matches/{{m}}/board/?view={_view}", _running, ALL_OK),
        (f"/matches/{{m}}/log/?view={_view}&after=0", _running, ALL_OK),
        (f"/matches/{{m}}/log/?view={_view}&after={{half}}", _running, ALL_OK),
    ]
TABLE += VIEW_ROWS


def _asked(m: Match, seat: int) -> int:
    """A step at which ``seat`` was asked to act."""
    for ev in store.read(m.id):
        if ev.metadata.get("actor") == seat and ev.type != "bot_verdict":
            return ev.version - 1
    raise AssertionError(f"seat {seat} never acted")


def _copy(original: Match, state: str, owner: Any) -> Match:
    """The original's events, a crash verdict and a stderr line of seat 0, then the end."""
    finals = store.read(original.id, from_version=original.last_version)
    upto = original.last_version - 1 if state == "finished" else original.last_version * 2 // 3
    m = running_copy(original, upto, owner=owner)
    crash = verdict_event(0, "crash", detail=TRACE, elapsed_ms=5, strikes=1, step=upto)
    flush(m, [crash])
    BotLogFactory(match=m, seat=0, version=upto, verdict="crash", text=STDERR)
    # A seed no page could show by chance (the original's, 11, is any step's number).
    Match.objects.filter(pk=m.pk).update(seed=SEED, options={"max_rounds": 59})
    if state == "finished":
        flush(m, [finals[0].as_engine_event()])
    elif state == "aborted":
        abort(m, REASON)
    m.refresh_from_db()
    assert m.status == {"running": "running", "finished": "finished", "aborted": "aborted"}[state]
    return m


@pytest.fixture(scope="module", params=STATES)
def world(
    request: pytest.FixtureRequest, django_db_setup: None, django_db_blocker: Any
) -> Iterator[dict[str, Any]]:
    """Built once per state for the module's 16 tests of it, which only read it (a fork's new
    match is rolled back with the test that made it)."""
    with shared_rows(django_db_blocker):
        yield _world(request.param)


def _world(state: str) -> dict[str, Any]:
    owner = UserFactory()
    original = play("brexit", 4, None, seed=11)
    m = _copy(original, state, owner)
    version = Seat.objects.get(match=m, number=0).bot_version
    assert version is not None
    rejected = BotVersionFactory(
        bot=version.bot, status=BotVersion.Status.REJECTED, validation_error=VALIDATION
    )
    smoke = _copy(original, "finished", owner)
    Match.objects.filter(pk=smoke.pk).update(validation_of=rejected)
    users = {
        "anon": None,
        "other": UserFactory(),
        "owner": owner,
        "staff": UserFactory(is_staff=True, is_superuser=True),
    }
    return {
        "state": state,
        "match": m,
        "users": users,
        "fill": {
            "m": m.pk,
            "bot": version.bot_id,
            "rejected": rejected.number,
            "asked0": _asked(m, 0),
            "asked1": _asked(m, 1),
            "half": m.last_version // 2,
            "log": BotLog.objects.get(match=m).pk,
            "smoke": smoke.pk,
        },
    }


def _client(user: Any) -> Client:
    c = Client()
    if user is not None:
        c.force_login(user)
    return c


def _may_read_logs(role: str, over: bool) -> bool:
    return role == "owner" or (role == "staff" and over)


def _marker(body: str, marker: str) -> bool:
    return marker.split()[0] in body


@pytest.mark.parametrize("role", ROLES)
def test_every_url_answers_each_role_as_the_rules_say(world: dict[str, Any], role: str) -> None:
    m: Match = world["match"]
    over = world["state"] != "running"
    c = _client(world["users"][role])
    hidden = set() if over else hidden_from(m, 0 if role == "owner" else None)
    if not over:
        assert len(hidden) > 5  # hands and the decks are there to be leaked
    wrong: list[tuple[str, Any, Any]] = []
    for template, running, finished in TABLE:
        # The smoke match is over and dealt the same cards: its own rows check who gets in.
        smoke = "{smoke}" in template
        url = template.format(**world["fill"])
        expected = int((finished if over else running).split()[ROLES.index(role)])
        r = c.get(url)
        if r.status_code != expected:
            wrong.append((url, r.status_code, expected))
            continue
        body = r.content.decode()
        if not smoke and leaked(r.content, hidden):
            wrong.append((url, "shows hidden cards", sorted(leaked(r.content, hidden))[:5]))
        if not _may_read_logs(role, over or smoke):
            wrong += [(url, "shows", mk) for mk in (TRACE, STDERR) if _marker(body, mk)]
        if role not in ("owner", "staff"):
            wrong += [(url, "shows", mk) for mk in (VALIDATION, REASON) if _marker(body, mk)]
        if not over and not smoke and str(SEED) in body:
            wrong.append((url, "shows", "the seed"))
    assert wrong == []


@pytest.mark.parametrize("role", ROLES)
def test_each_role_reads_what_is_theirs(world: dict[str, Any], role: str) -> None:
    """The other half of the matrix: what a role may read is really there."""
    m: Match = world["match"]
    over = world["state"] != "running"
    c = _client(world["users"][role])
    events = c.get(f"/api/matches/{m.pk}/events/").content.decode()
    # Everyone sees the verdict's kind and step; the detail only where the logs are readable.
    assert '"verdict":"crash"' in events
    assert _marker(events, TRACE) == _may_read_logs(role, over)
    if role != "anon":
        logs = c.get(f"/api/matches/{m.pk}/logs/").content.decode()
        assert _marker(logs, STDERR) == _may_read_logs(role, over)
        page = c.get(f"/matches/{m.pk}/").content.decode()
        assert _marker(page, STDERR) == _may_read_logs(role, over)
    fill = world["fill"]
    version = c.get(f"/api/bots/{fill['bot']}/versions/{fill['rejected']}/").content.decode()
    assert _marker(version, VALIDATION) == (role in ("owner", "staff"))
    if world["state"] == "aborted":
        detail = c.get(f"/api/matches/{m.pk}/").content.decode()
        assert _marker(detail, REASON) == (role in ("owner", "staff"))
        assert _marker(events, REASON) == (role in ("owner", "staff"))
        download = c.get(f"/api/matches/{m.pk}/download/").content.decode()
        assert _marker(download, REASON) == (role in ("owner", "staff"))


@pytest.mark.parametrize("role", ROLES)
def test_once_over_every_card_is_open(world: dict[str, Any], role: str) -> None:
    m: Match = world["match"]
    c = _client(world["users"][role])
    spectators_hidden = hidden_from(m, None)
    assert spectators_hidden
    download = c.get(f"/api/matches/{m.pk}/download/")
    everything = c.get(f"/api/matches/{m.pk}/state/?view=all")
    if world["state"] == "running":
        assert not leaked(download.content, spectators_hidden)  # the public view, by default
        assert everything.status_code == 404
        assert download.json()["match"]["seed"] is None
        assert download.json()["match"]["options"] is None
    else:
        assert leaked(download.content, spectators_hidden) == spectators_hidden
        assert everything.status_code == 200
        assert set(strings(everything.json()["state"])) & spectators_hidden
        assert download.json()["match"]["seed"] == m.seed


# Forking copies the events into a new match of the forker's: a match that is not over is no one's
# to fork (staff included), then only its bots' owners' (and staff's).
FORK = {"running": "401 400 400 400", "finished": "401 400 201 201", "aborted": "401 400 201 201"}


@pytest.mark.parametrize("role", ROLES)
def test_who_may_fork(world: dict[str, Any], role: str) -> None:
    m: Match = world["match"]
    r = _client(world["users"][role]).post(
        f"/api/matches/{m.pk}/fork/",
        {"step": world["fill"]["half"]},
        content_type="application/json",
    )
    assert r.status_code == int(FORK[world["state"]].split()[ROLES.index(role)]), r.content
