"""Which reads the replica serves (config/replica.py, tournaments/site/replica_reads.py), without
a replica: the router's and the middleware's decisions, with the lag check's answer given. The
real primary and standby: tests/faults/test_replica.py."""

from __future__ import annotations

import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.test import Client, RequestFactory

from config import replica
from tests import own_cache
from tests.factories import UserFactory
from tests.test_settings import run_manage
from tournaments.site import replica_reads

ROUTER = replica.PrimaryReplicaRouter()
PASSWORD = "pass-word-123"
"""UserFactory's."""


@pytest.fixture(autouse=True)
def _no_switch_left() -> Iterator[None]:
    yield
    replica.end()


def test_reads_go_to_the_primary_unless_a_request_asked_for_the_replica() -> None:
    assert ROUTER.db_for_read(User) is None
    replica.begin(replica.Reads(replica=False))
    assert ROUTER.db_for_read(User) is None
    replica.begin(replica.Reads(replica=True))
    assert ROUTER.db_for_read(User) == "replica"


def test_after_a_write_the_request_reads_the_primary() -> None:
    replica.begin(replica.Reads(replica=True))
    assert ROUTER.db_for_write(User) == "default"
    assert ROUTER.db_for_read(User) is None


def test_credentials_are_read_from_the_primary() -> None:
    replica.begin(replica.Reads(replica=True))
    with replica.on_primary():
        assert ROUTER.db_for_read(User) is None
    assert ROUTER.db_for_read(User) == "replica"


@pytest.mark.django_db(transaction=True)  # no test transaction around it
def test_inside_a_transaction_on_the_primary_reads_stay_there() -> None:
    replica.begin(replica.Reads(replica=True))
    with transaction.atomic():
        assert ROUTER.db_for_read(User) is None
    assert ROUTER.db_for_read(User) == "replica"


def test_objects_of_either_alias_relate_and_the_replica_is_never_migrated() -> None:
    read, written = User(), User()
    read._state.db, written._state.db = "replica", "default"
    assert ROUTER.allow_relation(read, written) is True
    assert ROUTER.allow_migrate("replica", "tournaments") is False
    assert ROUTER.allow_migrate("default", "tournaments") is None


def _state(status: str, lag: float | None) -> replica.ReplicaState:
    return replica.ReplicaState(status, lag, time.monotonic())


@pytest.fixture
def fresh_replica(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replica, "configured", lambda: True)
    monkeypatch.setattr(replica, "state", lambda: _state("ok", 0.5))


def serve(request: HttpRequest) -> tuple[HttpResponseBase, str | None]:
    """The middleware around a view that says where its read would go (and writes, if asked
    to by a method that writes)."""
    seen: list[str | None] = []

    def view(request: HttpRequest) -> HttpResponse:
        seen.append(ROUTER.db_for_read(User))
        if request.method not in replica_reads.READS:
            ROUTER.db_for_write(User)  # what the ORM asks before it writes
        return HttpResponse("ok")

    response = replica_reads.ReplicaReads(view)(request)
    return response, seen[0]


@pytest.mark.services  # the cache (Redis) remembers a token's writes
def test_the_replica_serves_reads_and_the_writer_reads_the_primary_for_a_while(
    fresh_replica: None, settings: object
) -> None:
    own_cache.clear()
    factory = RequestFactory()
    assert serve(factory.get("/matches/"))[1] == "replica"
    assert serve(factory.head("/api/matches/"))[1] == "replica"
    assert serve(factory.get("/admin/tournaments/match/"))[1] is None
    # A POST that writes reads the primary and marks its client, by cookie and by token.
    response, where = serve(factory.post("/api/matches/", HTTP_AUTHORIZATION="Token abc"))
    assert where is None
    cookie = response.cookies[replica_reads.COOKIE]
    assert cookie["httponly"] and int(cookie["max-age"]) > 5
    browser = factory.get("/matches/")
    browser.COOKIES[replica_reads.COOKIE] = cookie.value
    assert serve(browser)[1] is None
    assert serve(factory.get("/api/matches/", HTTP_AUTHORIZATION="Token abc"))[1] is None
    assert serve(factory.get("/api/matches/", HTTP_AUTHORIZATION="Token other"))[1] == "replica"
    # A forged or stale cookie counts for nothing.
    forged = factory.get("/matches/")
    forged.COOKIES[replica_reads.COOKIE] = "1:forged:sig"
    assert serve(forged)[1] == "replica"


def _answering(status: int, writes: bool = False) -> replica_reads.ReplicaReads:
    """The middleware around a view that answers ``status``, after a write if ``writes``."""

    def view(request: HttpRequest) -> HttpResponse:
        if writes:
            ROUTER.db_for_write(User)  # what the ORM asks before it writes
        return HttpResponse("answer", status=status)

    return replica_reads.ReplicaReads(view)


@pytest.mark.services  # the cache (Redis) remembers a token's writes
@pytest.mark.parametrize("status", [400, 401, 403, 404, 405, 413, 429, 500])
def test_a_request_that_failed_without_writing_marks_no_writer(
    fresh_replica: None, status: int
) -> None:
    """Otherwise any client could keep itself (or, by sending another's token, anyone) on the
    primary with a stream of cheap refused POSTs."""
    own_cache.clear()
    factory = RequestFactory()
    response = _answering(status)(factory.post("/api/matches/", HTTP_AUTHORIZATION="Token abc"))
    assert replica_reads.COOKIE not in response.cookies, status
    assert serve(factory.get("/api/matches/", HTTP_AUTHORIZATION="Token abc"))[1] == "replica"


@pytest.mark.services
@pytest.mark.parametrize("status", [200, 201, 302, 400])
def test_a_request_that_wrote_marks_its_writer_whatever_it_answered(
    fresh_replica: None, status: int
) -> None:
    """A failure that wrote anything (a partial write, a token's last use) may have committed it."""
    own_cache.clear()
    factory = RequestFactory()
    request = factory.post("/api/matches/", HTTP_AUTHORIZATION="Token abc")
    response = _answering(status, writes=True)(request)
    assert replica_reads.COOKIE in response.cookies
    assert serve(factory.get("/api/matches/", HTTP_AUTHORIZATION="Token abc"))[1] is None


@pytest.mark.services
@pytest.mark.parametrize("status", [200, 201, 302])
def test_a_request_that_succeeded_without_writing_marks_no_writer(
    fresh_replica: None, status: int
) -> None:
    """A form shown again with its errors and a 200 (a wrong password at the login) wrote
    nothing to read back: counting it would keep its client on the primary for free."""
    own_cache.clear()
    factory = RequestFactory()
    response = _answering(status)(factory.post("/api/matches/", HTTP_AUTHORIZATION="Token abc"))
    assert replica_reads.COOKIE not in response.cookies, status
    assert serve(factory.get("/api/matches/", HTTP_AUTHORIZATION="Token abc"))[1] == "replica"


@pytest.fixture
def lagging_replica(monkeypatch: pytest.MonkeyPatch) -> None:
    """A replica configured but lagging: the middleware marks writers as ever, while every read
    is the primary's (the suite has no replica alias to read)."""
    monkeypatch.setattr(replica, "configured", lambda: True)
    monkeypatch.setattr(replica, "state", lambda: _state("lagging", None))


@pytest.mark.django_db
@pytest.mark.services  # the login's rate limit counts in the cache (Redis)
def test_a_wrong_login_or_an_invalid_form_marks_no_writer_and_a_login_does(
    lagging_replica: None,
) -> None:
    """The site's login shows a failed form again with a 200; it wrote nothing to read back."""
    own_cache.clear()
    user = UserFactory()
    client = Client()
    for body in ({"username": user.username, "password": "wrong"}, {"username": ""}):
        failed = client.post("/accounts/login/", body)
        assert failed.status_code == 200 and b"<form" in failed.content, body
        assert replica_reads.COOKIE not in failed.cookies, body
    done = client.post("/accounts/login/", {"username": user.username, "password": PASSWORD})
    assert done.status_code == 302
    assert replica_reads.COOKIE in done.cookies  # its session, written: read back on the primary


def test_a_lagging_or_absent_replica_serves_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    factory = RequestFactory()
    monkeypatch.setattr(replica, "configured", lambda: True)
    for status in ("lagging", "unavailable", "not_standby"):
        monkeypatch.setattr(replica, "state", lambda s=status: _state(s, None))
        assert serve(factory.get("/matches/"))[1] is None, status
    # No replica configured (the default): the middleware does nothing, sets no cookie.
    monkeypatch.setattr(replica, "configured", lambda: False)
    response, where = serve(factory.post("/api/matches/"))
    assert where is None and replica_reads.COOKIE not in response.cookies


@pytest.mark.django_db
def test_health_answers_without_a_replica(client: Client) -> None:
    response = client.get("/health/")
    assert response.status_code == 200
    assert response.json() == {
        "database": "ok",
        "replica": "absent",
        "replica_lag_seconds": None,
        "reads": "primary",
    }
    assert "no-cache" in response["Cache-Control"]
    assert client.post("/health/").status_code == 405


@pytest.mark.services
def test_a_replica_url_adds_the_alias_and_the_suite_mirrors_it_to_its_own_database() -> None:
    code = (
        "from django.conf import settings as s; r = s.DATABASES['replica'];"
        " print(r['HOST'], r['PORT'], r['NAME'], r['TEST']['MIRROR'], r['OPTIONS'])"
    )
    done = run_manage(
        "shell",
        "-c",
        code,
        DJANGO_SETTINGS_MODULE="config.settings.test",
        REPLICA_DATABASE_URL="postgres://u@standby.example:5433/backroom",
    )
    assert done.returncode == 0, done.stderr
    line = done.stdout.strip().splitlines()[-1]
    assert line.startswith("standby.example 5433 backroom default"), line
    assert "'connect_timeout': 2" in line


@pytest.mark.services
def test_the_read_your_writes_window_must_outlast_the_lag_bound() -> None:
    done = run_manage(
        "check",
        DJANGO_SETTINGS_MODULE="config.settings.test",
        REPLICA_MAX_LAG_SECONDS="10",
        REPLICA_READ_YOUR_WRITES_SECONDS="10",
    )
    assert done.returncode != 0
    assert "REPLICA_READ_YOUR_WRITES_SECONDS must exceed" in done.stderr


def test_the_lag_check_answers_from_its_last_measure_within_the_check_interval(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    """One measure (two queries) serves every request for REPLICA_LAG_CHECK_SECONDS; the first
    call after the interval measures again."""
    clock = [1000.0]
    measured: list[float] = []

    def measure() -> replica.ReplicaState:
        measured.append(clock[0])
        return replica.ReplicaState("ok", 0.0, clock[0])

    settings.REPLICA_LAG_CHECK_SECONDS = 1.0
    monkeypatch.setattr(replica, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    monkeypatch.setattr(replica, "measure", measure)
    monkeypatch.setattr(replica, "_state", None)
    first = replica.state()
    clock[0] += 0.5
    assert replica.state() is first and measured == [1000.0]
    clock[0] += 0.5  # the interval is over
    again = replica.state()
    assert again is not first and again.checked_at == 1001.0 and measured == [1000.0, 1001.0]
