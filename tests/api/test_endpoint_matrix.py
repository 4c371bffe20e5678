"""Every route of the API and the site, for anonymous, another user, the owner and staff: who may
read (GET), create (POST), change (PATCH) and delete (DELETE).

The routes are enumerated from Django's URL resolver, so a new endpoint or page without a row
in ``MATRIX`` fails ``test_every_route_has_a_row``. The world is one finished Brexit match whose
seat 0 is the owner's *private* bot (its version 1 was rejected, so its validation error is
there to leak), a running copy of it, a ladder and a season. Each request runs in a savepoint
rolled back after it, so a delete does not change what the next row sees.

Statuses read "anon other owner staff". tests/api/test_access_matrix.py checks the bodies
(hidden cards, logs, seeds, validation errors) of the URLs that carry a match's data.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib import admin
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from tests.api.conftest import Enqueued, throttle_rates
from tests.api.test_access_matrix import _asked
from tests.factories import BotVersionFactory, UserFactory
from tests.viewer.conftest import play, running_copy
from tournaments.competition.models import Ladder, Season, Series
from tournaments.play import runner, services
from tournaments.play.models import Bot, BotVersion, Match, Seat

pytestmark = pytest.mark.django_db

ROLES = ("anon", "other", "owner", "staff")
PASSWORD = "a-long-pass-phrase-9"

METHODS = ("GET", "POST", "PATCH", "DELETE")
ADMIN = "admin"
"""MATRIX's row for every admin page (the index, each model's list and add form)."""

# Route name -> {method: "anon other owner staff"}. GET reads, POST creates, PATCH changes,
# DELETE deletes; a method a route does not take must be refused too (405, or 401/403 first).
MATRIX: dict[str, dict[str, str]] = {
    "account-create": {
        "GET": "405 405 405 405",
        "POST": "201 201 201 201",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "account-me": {
        "GET": "401 200 200 200",
        "POST": "401 405 405 405",
        "PATCH": "401 405 405 405",
        "DELETE": "401 405 405 405",
    },
    "account-token": {
        "GET": "405 405 405 405",
        "POST": "200 200 200 200",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "api-docs": {
        "GET": "200 200 200 200",
        "POST": "405 405 405 405",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    # Any other URL under /api/: the API's JSON 404, whatever the method.
    "api-not-found": {
        "GET": "404 404 404 404",
        "POST": "404 404 404 404",
        "PATCH": "404 404 404 404",
        "DELETE": "404 404 404 404",
    },
    "api-root": {
        "GET": "200 200 200 200",
        "POST": "401 405 405 405",
        "PATCH": "401 405 405 405",
        "DELETE": "401 405 405 405",
    },
    "bot-activate": {
        "GET": "405 405 405 405",
        "POST": "401 404 200 200",
        "PATCH": "401 405 405 405",
        "DELETE": "401 405 405 405",
    },
    "bot-deactivate": {
        "GET": "405 405 405 405",
        "POST": "401 404 200 200",
        "PATCH": "401 405 405 405",
        "DELETE": "401 405 405 405",
    },
    "bot-detail": {
        "GET": "404 404 200 200",
        "POST": "401 405 405 405",
        "PATCH": "401 404 200 200",
        "DELETE": "401 404 204 204",
    },
    "bot-list": {
        "GET": "200 200 200 200",
        "POST": "401 201 201 201",
        "PATCH": "401 405 405 405",
        "DELETE": "401 405 405 405",
    },
    "bot-version-detail": {
        "GET": "404 404 200 200",
        "POST": "401 405 405 405",
        "PATCH": "401 405 405 405",
        "DELETE": "401 405 405 405",
    },
    "bot-version-source": {
        "GET": "404 404 200 200",
        "POST": "401 405 405 405",
        "PATCH": "401 405 405 405",
        "DELETE": "401 405 405 405",
    },
    "bot-errors": {
        "GET": "404 404 200 200",
        "POST": "401 405 405 405",
        "PATCH": "401 405 405 405",
        "DELETE": "401 405 405 405",
    },
    "bot-versions": {
        "GET": "404 404 200 200",
        "POST": "401 404 201 201",
        "PATCH": "401 405 405 405",
        "DELETE": "401 405 405 405",
    },
    # Open to anyone, read only (tournaments/site/health.py).
    "health": {
        "GET": "200 200 200 200",
        "POST": "405 405 405 405",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "ladder-detail": {
        "GET": "200 200 200 200",
        "POST": "405 405 405 405",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "ladder-history": {
        "GET": "200 200 200 200",
        "POST": "405 405 405 405",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "ladder-list": {
        "GET": "200 200 200 200",
        "POST": "405 405 405 405",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "ladder-ratings": {
        "GET": "200 200 200 200",
        "POST": "405 405 405 405",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "login": {
        "GET": "200 302 302 302",
        "POST": "302 302 302 302",
        "PATCH": "405 302 302 302",
        "DELETE": "405 302 302 302",
    },
    "logout": {
        "GET": "405 405 405 405",
        "POST": "302 302 302 302",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "match-detail": {
        "GET": "200 200 200 200",
        "POST": "401 405 405 405",
        "PATCH": "401 405 405 405",
        "DELETE": "401 405 405 405",
    },
    # A person's seat (the owner plays seat 0 of a waiting match): only they see and act on it.
    "match-actions": {
        "GET": "401 404 200 404",
        "POST": "401 404 202 404",
        "PATCH": "401 405 405 405",
        "DELETE": "401 405 405 405",
    },
    "match-download": {
        "GET": "200 200 200 200",
        "POST": "401 405 405 405",
        "PATCH": "401 405 405 405",
        "DELETE": "401 405 405 405",
    },
    "match-events": {
        "GET": "200 200 200 200",
        "POST": "401 405 405 405",
        "PATCH": "401 405 405 405",
        "DELETE": "401 405 405 405",
    },
    "match-fork": {
        "GET": "401 405 405 405",
        # Others may not fork it (400 says why); its owner and staff may.
        "POST": "401 400 201 201",
        "PATCH": "401 405 405 405",
        "DELETE": "401 405 405 405",
    },
    "match-list": {
        "GET": "200 200 200 200",
        "POST": "401 201 201 201",
        "PATCH": "401 405 405 405",
        "DELETE": "401 405 405 405",
    },
    "match-logs": {
        "GET": "401 200 200 200",
        "POST": "401 405 405 405",
        "PATCH": "401 405 405 405",
        "DELETE": "401 405 405 405",
    },
    "match-state": {
        "GET": "200 200 200 200",
        "POST": "401 405 405 405",
        "PATCH": "401 405 405 405",
        "DELETE": "401 405 405 405",
    },
    "schema": {
        "GET": "200 200 200 200",
        "POST": "405 405 405 405",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "season-detail": {
        "GET": "200 200 200 200",
        "POST": "405 405 405 405",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "season-list": {
        "GET": "200 200 200 200",
        "POST": "405 405 405 405",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "season-schedule": {
        "GET": "200 200 200 200",
        "POST": "405 405 405 405",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "series-cancel": {
        "GET": "401 405 405 405",
        "POST": "401 404 200 200",
        "PATCH": "401 405 405 405",
        "DELETE": "401 405 405 405",
    },
    "series-detail": {
        "GET": "401 404 200 200",
        "POST": "401 405 405 405",
        "PATCH": "401 405 405 405",
        "DELETE": "401 405 405 405",
    },
    "series-list": {
        "GET": "401 200 200 200",
        "POST": "401 400 400 400",
        "PATCH": "401 405 405 405",
        "DELETE": "401 405 405 405",
    },
    "site-seasons": {
        "GET": "200 200 200 200",
        "POST": "405 405 405 405",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    # The author's pages (tournaments/site/pages/accounts.py, my_bots.py): log in first; a bot's
    # own pages are its owner's alone (staff too see only their own), others get a 404.
    "site-signup": {
        "GET": "200 302 302 302",
        "POST": "302 302 302 302",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "site-account": {
        "GET": "302 200 200 200",
        "POST": "302 405 405 405",
        "PATCH": "302 405 405 405",
        "DELETE": "302 405 405 405",
    },
    "site-password": {
        "GET": "302 200 200 200",
        "POST": "302 400 302 400",
        "PATCH": "302 405 405 405",
        "DELETE": "302 405 405 405",
    },
    "site-token-create": {
        "GET": "302 302 302 302",  # to the page holding the form
        "POST": "302 302 302 302",  # post/redirect/get: the account page shows the key once
        "PATCH": "302 405 405 405",
        "DELETE": "302 405 405 405",
    },
    "site-token-revoke": {
        "GET": "302 302 302 302",  # to the page holding the form
        "POST": "302 404 302 404",
        "PATCH": "302 405 405 405",
        "DELETE": "302 405 405 405",
    },
    "site-my-bots": {
        "GET": "302 200 200 200",
        "POST": "302 405 405 405",
        "PATCH": "302 405 405 405",
        "DELETE": "302 405 405 405",
    },
    "site-bot-new": {
        "GET": "302 200 200 200",
        "POST": "302 302 302 302",
        "PATCH": "302 405 405 405",
        "DELETE": "302 405 405 405",
    },
    "site-bot-manage": {
        "GET": "302 404 200 404",
        "POST": "302 404 302 404",
        "PATCH": "302 405 405 405",
        "DELETE": "302 405 405 405",
    },
    "site-bot-upload": {
        "GET": "302 302 302 302",  # to the page holding the form
        "POST": "302 404 302 404",
        "PATCH": "302 405 405 405",
        "DELETE": "302 405 405 405",
    },
    "site-bot-activate": {
        "GET": "302 302 302 302",  # to the page holding the form
        "POST": "302 404 302 404",
        "PATCH": "302 405 405 405",
        "DELETE": "302 405 405 405",
    },
    "site-series": {
        "GET": "404 404 200 200",
        "POST": "405 405 405 405",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "site-series-cancel": {
        "GET": "302 302 302 302",  # to the login page, or the series page (a 404 for another)
        "POST": "302 404 302 302",
        "PATCH": "302 405 405 405",
        "DELETE": "302 405 405 405",
    },
    "site-series-list": {
        "GET": "302 200 200 200",
        "POST": "302 400 400 400",
        "PATCH": "302 405 405 405",
        "DELETE": "302 405 405 405",
    },
    # Challenge from a page: a match for whoever is logged in (its seats are built-ins here).
    "site-challenge": {
        "GET": "302 200 200 200",
        "POST": "302 303 303 303",
        "PATCH": "302 405 405 405",
        "DELETE": "302 405 405 405",
    },
    "site-act": {
        "GET": "404 404 200 200",
        "POST": "405 405 405 405",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "site-bot": {
        "GET": "404 404 200 200",
        "POST": "405 405 405 405",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "site-bot-errors": {
        "GET": "404 404 200 200",
        "POST": "405 405 405 405",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    # The webhook is the owner's own setting: staff, who may change any bot, do not set it.
    "site-bot-webhook": {
        "GET": "302 302 302 302",  # to the errors page, which holds the form (or is a 404)
        "POST": "404 404 302 403",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "site-doc": {
        "GET": "200 200 200 200",
        "POST": "405 405 405 405",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "site-home": {
        "GET": "200 200 200 200",
        "POST": "405 405 405 405",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "site-ladder": {
        "GET": "200 200 200 200",
        "POST": "405 405 405 405",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "site-match": {
        "GET": "200 200 200 200",
        "POST": "405 405 405 405",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "site-match-board": {
        "GET": "200 200 200 200",
        "POST": "405 405 405 405",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "site-match-play": {
        "GET": "404 404 200 404",
        "POST": "405 405 405 405",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "site-match-log": {
        "GET": "200 200 200 200",
        "POST": "405 405 405 405",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "site-matches": {
        "GET": "200 200 200 200",
        "POST": "405 405 405 405",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    "site-season": {
        "GET": "200 200 200 200",
        "POST": "405 405 405 405",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    # The admin's login form: staff already in go to the index; others (logged in or not) get
    # the form (and no further without a staff account). Rate-limited: test_abuse_limits.py.
    "admin-login": {
        "GET": "200 200 200 302",
        "POST": "200 200 200 200",
        "PATCH": "405 405 405 405",
        "DELETE": "405 405 405 405",
    },
    # The admin's own password form, on the account's budget of wrong old passwords: staff only.
    "admin-password-change": {
        "GET": "302 302 302 200",
        "POST": "302 302 302 200",  # the form again: no old password given
        "PATCH": "302 302 302 405",
        "DELETE": "302 302 302 405",
    },
    # Every admin page: a redirect to the admin's login for all but staff, whatever the method.
    ADMIN: {"GET": "302 302 302 200", "POST": "302 302 302 200"},
}


OWNER = "the-owner"
PRIVATE_NAME = "the-private-bot"
BOT_SOURCE = "def act(observation, legal):\n    return None\n"
# Bodies for the writes, so that whoever may write gets a 2xx ("{step}": a step of the match).
BODIES: dict[str, dict[str, Any]] = {
    "account-create POST": {"username": "newcomer", "password": PASSWORD},
    "account-token POST": {"username": OWNER, "password": PASSWORD},
    "login POST": {"username": OWNER, "password": PASSWORD},
    "bot-list POST": {"game": "brexit", "name": "new bot"},
    "bot-activate POST": {"number": 2},
    "bot-detail PATCH": {"description": "changed"},
    "bot-versions POST": {"source": BOT_SOURCE},
    "site-bot-webhook POST": {"webhook_url": "https://example.com/hook"},
    "match-list POST": {"game": "brexit", "seats": [{"builtin": "random"}] * 3},
    "match-fork POST": {"step": "{step}", "seats": [{"builtin": "random"}, {}, {}]},
    "match-actions POST": {"action": {"place": []}},
    "site-signup POST": {"username": "site-newcomer", "password": PASSWORD, "password2": PASSWORD},
    "site-password POST": {
        "old_password": PASSWORD,
        "new_password1": "another-pass-phrase-7",
        "new_password2": "another-pass-phrase-7",
    },
    "site-token-create POST": {"name": "ci"},
    "site-bot-new POST": {"game": "brexit", "name": "site bot"},
    "site-bot-upload POST": {"source": BOT_SOURCE},
    "site-bot-activate POST": {"number": "2"},
    "site-challenge POST": {
        "game": "brexit",
        **{f"seat_{n}": "builtin:random" for n in range(3)},
        "options": "{}",
    },
}
QUERIES = {"site-act": "?step={asked}"}
# A sign-up logs in; a password change ends the session's old hash (rolled back after it).
LOGS_IN_OR_OUT = {"login", "logout", "admin-login", "site-signup", "site-password"}


def _routes(patterns: list[Any], prefix: str = "") -> Iterator[tuple[str, str]]:
    for p in patterns:
        if isinstance(p, URLResolver):
            if str(p.pattern) == "admin/":
                continue  # the admin: rows of its own, one per registered model (below)
            yield from _routes(p.url_patterns, prefix + str(p.pattern))
        elif isinstance(p, URLPattern) and "format" not in str(p.pattern):
            # ``.json`` suffix variants run the same view as the route itself.
            assert p.name, f"unnamed route {prefix}{p.pattern}"
            yield p.name, prefix + str(p.pattern)


def route_names() -> set[str]:
    return {name for name, _ in _routes(get_resolver().url_patterns)}


def admin_names() -> list[str]:
    names = ["admin:index"]
    for model in admin.site._registry:
        meta = model._meta
        names += [f"admin:{meta.app_label}_{meta.model_name}_{v}" for v in ("changelist", "add")]
    return names


def _waiting_for(owner: Any) -> Match:
    """A match waiting for the owner's own seat 0 (a person's seat) against built-ins."""
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(owner)
    seats = [{"human": True}, {"builtin": "random"}, {"builtin": "random"}]
    r = api.post("/api/matches/", {"game": "brexit", "seats": seats, "seed": 5}, format="json")
    assert r.status_code == 201, r.content
    runner.run_match(uuid.UUID(str(r.data["id"])))
    match = Match.objects.get(pk=r.data["id"])
    assert match.status == Match.Status.WAITING and match.waiting_for == [0]
    return match


@pytest.fixture
def world(enqueued: Enqueued) -> dict[str, Any]:
    owner = UserFactory(username=OWNER, password=PASSWORD)
    finished = play("brexit", 3, owner, seed=5)
    version = Seat.objects.get(match=finished, number=0).bot_version
    assert version is not None
    Bot.objects.filter(pk=version.bot_id).update(is_public=False, name=PRIVATE_NAME)
    BotVersion.objects.filter(pk=version.pk).update(
        status=BotVersion.Status.REJECTED, validation_error="SECRET"
    )
    BotVersionFactory(bot=version.bot, status=BotVersion.Status.READY)
    token, _key = services.create_token(user=owner, name="a token")
    running = running_copy(finished, finished.last_version // 2, owner=owner)
    waiting = _waiting_for(owner)
    ladder = Ladder.objects.create(name="l", game="brexit", seats=3)
    season = Season.objects.create(name="s", game="brexit", seats=3, state="running")
    series = Series.objects.create(
        owner=owner, game="brexit", seats=2, deals=1, players=["builtin:random", "builtin:greedy"]
    )
    users = {
        "anon": None,
        "other": UserFactory(),
        "owner": owner,
        "staff": UserFactory(is_staff=True, is_superuser=True),
    }
    return {
        "users": users,
        "kwargs": {
            "pk": version.bot_id,
            "bot_id": version.bot_id,
            "number": version.number,
            "match_id": finished.pk,
            "ladder_id": ladder.pk,
            "season_id": season.pk,
            "series_id": series.pk,
            "seat": 0,
            "name": "bots",
            "token_id": token.pk,
        },
        "by_name": {
            "site-ladder": {"pk": ladder.pk},
            "site-season": {"pk": season.pk},
            "site-series": {"pk": series.pk},
            "site-series-cancel": {"pk": series.pk},
            "api-not-found": {"rest": "no/such/thing/"},
            "match-actions": {"match_id": waiting.pk},
            "site-match-play": {"match_id": waiting.pk},
        },
        "query": {"asked": _asked(finished, 0)},
        "step": finished.last_version // 2,
        "running": running,
        "finished": finished,
        "owner": owner,
    }


def url_of(world: dict[str, Any], name: str, pattern: str) -> str:
    kwargs = {
        k: v
        for k, v in world["kwargs"].items()
        if f"<{k}>" in pattern or f":{k}>" in pattern or f"(?P<{k}>" in pattern
    }
    kwargs.update(world["by_name"].get(name, {}))
    return reverse(name, kwargs=kwargs)


def _client(user: Any) -> Client:
    c = Client()
    if user is not None:
        c.force_login(user)
    return c


def _request(c: Client, method: str, url: str, body: dict[str, Any] | None) -> int:
    """One request in a savepoint rolled back after it, so that no row changes the next."""
    # The API reads JSON; the site's forms read form data.
    kind = {"content_type": "application/json"} if url.startswith("/api/") else {}
    if method != "POST" and not kind:
        kind = {"content_type": "application/x-www-form-urlencoded"}
        body = None
    with transaction.atomic():
        r = getattr(c, method.lower())(url, body or {}, **kind)
        transaction.set_rollback(True)
    return int(r.status_code)


# Admin pages that are refused to staff too: matches are made by challenges, never by hand.
ADMIN_REFUSED = {"admin:tournaments_match_add": "302 302 302 403"}

# No throttle in the way here: tests/api/test_abuse_limits.py has those.
UNLIMITED = {scope: "100000/minute" for scope in ("challenges", "uploads", "signups", "logins")}


def observe(
    world: dict[str, Any], names: list[str], methods: tuple[str, ...] = METHODS
) -> dict[str, dict[str, str]]:
    """What each route answers each role, per method, as MATRIX writes it."""
    routes = dict(_routes(get_resolver().url_patterns))
    clients = {role: _client(world["users"][role]) for role in ROLES}
    seen: dict[str, dict[str, str]] = {}
    with throttle_rates(**UNLIMITED):
        for name in names:
            url = url_of(world, name, routes[name]) if name in routes else reverse(name)
            url += QUERIES.get(name, "").format(**world["query"])
            for method in methods:
                body = {
                    k: world["step"] if v == "{step}" else v
                    for k, v in BODIES.get(f"{name} {method}", {}).items()
                }
                statuses = []
                for role in ROLES:
                    statuses.append(_request(clients[role], method, url, body))
                    if name in LOGS_IN_OR_OUT:  # the session changed: start the role afresh
                        clients[role] = _client(world["users"][role])
                seen.setdefault(name, {})[method] = " ".join(map(str, statuses))
    return seen


def test_every_route_has_a_row() -> None:
    assert route_names() - set(MATRIX) == set(), "a route without a row in MATRIX"
    assert set(MATRIX) - route_names() - {ADMIN} == set(), "a row for a route that is gone"


def test_every_route_answers_each_role_as_the_table_says(world: dict[str, Any]) -> None:
    names = sorted(route_names())
    seen = observe(world, names)
    wrong = {
        (name, method): (seen[name][method], expected)
        for name in names
        for method, expected in MATRIX[name].items()
        if seen[name][method] != expected
    }
    assert wrong == {}


def test_the_admin_is_staff_only(world: dict[str, Any]) -> None:
    seen = observe(world, admin_names(), ("GET", "POST"))
    wrong = {
        (name, method): got
        for name, methods in seen.items()
        for method, got in methods.items()
        if got != ADMIN_REFUSED.get(name, MATRIX[ADMIN][method])
    }
    assert wrong == {}


@pytest.mark.parametrize("role", ROLES)
def test_match_lists_do_not_name_a_private_bot(world: dict[str, Any], role: str) -> None:
    """Anonymous ``/api/matches/?bot=<private bot>`` once listed its matches, owner and id."""
    bot = world["kwargs"]["bot_id"]
    c = _client(world["users"][role])
    sees = role in ("owner", "staff")
    for url in (f"/api/matches/?bot={bot}", "/api/matches/", f"/matches/?bot={bot}"):
        body = c.get(url).content.decode()
        assert (PRIVATE_NAME in body) == sees, url
        assert (f'"bot":{bot},' in body or f"/bots/{bot}/" in body) == sees, url
    listed = len(c.get(f"/api/matches/?bot={bot}").json()["results"])
    assert listed == (1 if sees else 0)
