"""An account's share of the workers, at every door that asks for work: challenges, forks and
uploads answer 429 with the reason and Retry-After once an account (or all the accounts of its
sign-up address) has as many matches queued or running, or uploads being validated, as it may,
or has used its hour of worker time (tournaments/play/allowance.py, docs/api.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.api.conftest import Enqueued
from tests.factories import UserFactory, finish, suspend
from tests.viewer.conftest import play
from tournaments.play import lifecycle, worker_time
from tournaments.play.models import AccountOrigin, BotVersion, Match

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-pass-phrase-9"
THREE_RANDOM = {"game": "brexit", "seats": [{"builtin": "random"}] * 3}
SOURCE = "def act(observation, legal):\n    return legal['actions'][0]\n"


def refused(r: Any, *words: str) -> str:
    assert r.status_code == 429, r.content
    assert int(r["Retry-After"]) > 0
    detail = str(r.json()["detail"])
    for word in words:
        assert word in detail, detail
    return detail


def challenge(api: APIClient) -> Any:
    return api.post("/api/matches/", THREE_RANDOM, format="json")


def fork(api: APIClient, finished: Match) -> Any:
    url = f"/api/matches/{finished.pk}/fork/"
    return api.post(url, {"step": finished.last_version // 2}, format="json")


def upload(api: APIClient, bot_id: int, n: int) -> Any:
    body = {"source": f"{SOURCE}# {n}\n", "filename": "bot.py"}
    return api.post(f"/api/bots/{bot_id}/versions/", body, format="json")


def owner_of_a_finished_match(
    client_for: Callable[[Any], APIClient],
) -> tuple[Any, APIClient, Match]:
    """A user whose bot played a finished match (which they may fork), and their client."""
    owner = UserFactory()
    return owner, client_for(owner), play("brexit", 3, owner, seed=5)


def test_challenges_and_forks_stop_at_the_cap_of_matches_queued_or_running(
    client_for: Callable[[Any], APIClient], enqueued: Enqueued, settings: Any
) -> None:
    settings.FAIR_MAX_ACTIVE_MATCHES = 2
    _, api, finished = owner_of_a_finished_match(client_for)
    assert challenge(api).status_code == 201
    assert fork(api, finished).status_code == 201
    before = Match.objects.count()
    refused(
        challenge(api), "2 of your matches are queued, running or waiting", "wait for one to finish"
    )
    refused(fork(api, finished), "queued, running or waiting")
    assert Match.objects.count() == before  # the refusals made nothing
    # Once one is over, there is room again.
    finish(Match.objects.get(status=Match.Status.QUEUED, forked_from=None))
    assert challenge(api).status_code == 201
    # Another account is not held back by this one's queue.
    assert challenge(client_for(UserFactory())).status_code == 201


def test_a_persons_match_waiting_for_a_move_counts_as_active(
    api: APIClient, user: Any, enqueued: Enqueued, settings: Any
) -> None:
    # Its deadline queues it again with the default played: uncounted, one account's games
    # with a scripted "person" were never refused (issue 21's outside review).
    settings.FAIR_MAX_ACTIVE_MATCHES = 1
    assert challenge(api).status_code == 201
    match = suspend(Match.objects.get(created_by=user))  # as its worker leaves it for a move
    refused(challenge(api), "1 of your matches are queued, running or waiting for a move")
    assert lifecycle.do_abandon(match, "nobody played")  # over
    assert challenge(api).status_code == 201


def test_uploads_stop_at_the_cap_of_versions_being_validated(
    api: APIClient, user: Any, enqueued: Enqueued, settings: Any
) -> None:
    settings.FAIR_MAX_PENDING_VERSIONS = 2
    bot = api.post("/api/bots/", {"game": "brexit", "name": "b"}, format="json").json()
    assert upload(api, bot["id"], 1).status_code == 201
    assert upload(api, bot["id"], 2).status_code == 201
    refused(upload(api, bot["id"], 3), "2 of your uploads are still being validated")
    assert BotVersion.objects.filter(bot_id=bot["id"]).count() == 2
    # The same file again is the version already stored, not a new one: never refused.
    assert upload(api, bot["id"], 2).status_code == 200
    BotVersion.objects.filter(bot_id=bot["id"]).update(status=BotVersion.Status.READY)
    assert upload(api, bot["id"], 3).status_code == 201


def test_an_hour_of_worker_time_used_up_refuses_new_work_until_it_frees(
    client_for: Callable[[Any], APIClient], enqueued: Enqueued, settings: Any
) -> None:
    settings.FAIR_WORKER_SECONDS_PER_HOUR = 600.0
    owner, api, finished = owner_of_a_finished_match(client_for)
    bot = api.post("/api/bots/", {"game": "brexit", "name": "b"}, format="json").json()
    worker_time.charge([f"u:{owner.pk}"], 601.0)
    for r in (challenge(api), fork(api, finished), upload(api, bot["id"], 1)):
        detail = refused(r, "used 601 s of the workers' time in the last hour", "600 s")
        assert "validations of uploads count" in detail
        assert 60 <= int(r["Retry-After"]) <= 3660  # when its oldest minute leaves the hour
    assert challenge(client_for(UserFactory())).status_code == 201


def sign_up(name: str, address: str) -> APIClient:
    c = APIClient()
    r = c.post(
        "/api/accounts/",
        {"username": name, "password": PASSWORD},
        format="json",
        REMOTE_ADDR=address,
    )
    assert r.status_code == 201, r.content
    c.credentials(HTTP_AUTHORIZATION=f"Token {r.json()['token']}")
    return c


def test_a_sign_up_keeps_its_address_and_accounts_of_one_address_share_the_caps(
    enqueued: Enqueued, settings: Any
) -> None:
    settings.FAIR_MAX_ACTIVE_MATCHES = 1
    settings.FAIR_ADDRESS_FACTOR = 2
    first, second, third = (sign_up(f"same{n}", "198.51.100.7") for n in range(3))
    elsewhere = sign_up("elsewhere", "203.0.113.9")
    assert set(AccountOrigin.objects.values_list("address", flat=True)) == {
        "198.51.100.7",
        "203.0.113.9",
    }
    assert challenge(first).status_code == 201
    assert challenge(second).status_code == 201
    refused(challenge(third), "accounts signed up from your address", "(2)")
    assert challenge(elsewhere).status_code == 201


def test_accounts_of_one_address_share_the_hourly_budget(enqueued: Enqueued, settings: Any) -> None:
    settings.FAIR_WORKER_SECONDS_PER_HOUR = 100.0
    settings.FAIR_ADDRESS_FACTOR = 2
    fresh = sign_up("fresh", "198.51.100.8")
    worker_time.charge(["a:198.51.100.8"], 250.0)
    refused(challenge(fresh), "the accounts signed up from your address used 250 s")


def test_signing_up_is_limited_to_five_accounts_an_hour_per_address() -> None:
    for n in range(5):
        sign_up(f"user{n}", "192.0.2.5")
    r = APIClient().post(
        "/api/accounts/",
        {"username": "sixth", "password": PASSWORD},
        format="json",
        REMOTE_ADDR="192.0.2.5",
    )
    assert r.status_code == 429
    sign_up("another-address", "192.0.2.6")


def test_the_addresses_of_one_ipv6_network_are_one_origin_and_share_the_sign_up_limit() -> None:
    # An IPv6 host is handed a whole /64: counted by exact address, each of its addresses was
    # an origin of its own, with its own sign-ups, caps and turn (issue 21's fifth review).
    for n in range(5):
        sign_up(f"v6user{n}", f"2001:db8:1:2::{n + 1:x}")
    r = APIClient().post(
        "/api/accounts/",
        {"username": "v6sixth", "password": PASSWORD},
        format="json",
        REMOTE_ADDR="2001:db8:1:2:ffff::1",
    )
    assert r.status_code == 429
    assert set(AccountOrigin.objects.values_list("address", flat=True)) == {"2001:db8:1:2::"}
    sign_up("next-network", "2001:db8:1:3::1")
    sign_up("mapped", "::ffff:192.0.2.44")
    assert AccountOrigin.objects.get(user__username="mapped").address == "192.0.2.44"


def test_an_ipv6_networks_accounts_share_the_hourly_budget(
    enqueued: Enqueued, settings: Any
) -> None:
    """The budget's key is the address as Django reads it (``origin_key``), read back in SQL."""
    settings.FAIR_WORKER_SECONDS_PER_HOUR = 100.0
    settings.FAIR_ADDRESS_FACTOR = 2
    fresh = sign_up("v6fresh", "2001:db8:a:b::7")
    [address] = AccountOrigin.objects.values_list("address", flat=True)
    worker_time.charge([f"a:{address}"], 250.0)
    refused(challenge(fresh), "the accounts signed up from your address used 250 s")


@pytest.mark.parametrize("door", ["challenge", "upload"])
def test_a_write_reads_the_allowance_in_one_query_after_the_accounts_lock(
    door: str, enqueued: Enqueued
) -> None:
    """The caps (own and address's) and the hour's worker time of the account and its address:
    one round trip once the account's row is locked (was four: two counts, the address twice,
    the worker time)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    api = sign_up(f"one-query-{door}", "198.51.100.20")
    bot = api.post("/api/bots/", {"game": "brexit", "name": "b"}, format="json").json()
    with CaptureQueriesContext(connection) as queries:
        made = challenge(api) if door == "challenge" else upload(api, bot["id"], 1)
    assert made.status_code == 201, made.content
    sql = [q["sql"] for q in queries.captured_queries]
    [locked] = [
        i for i, q in enumerate(sql) if q.startswith('SELECT "auth_user"') and "FOR UPDATE" in q
    ]
    [inserted] = [i for i, q in enumerate(sql) if q.startswith("INSERT INTO")][:1]
    between = sql[locked + 1 : inserted]
    allowance = [q for q in between if "tournaments_accountorigin" in q or "workertime" in q]
    assert len(allowance) == 1, between
