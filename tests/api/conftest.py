"""API test fixtures: clients per user, a clean throttle cache, a record of enqueued tasks, and a
replica one write behind the primary."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.db import connections
from rest_framework.test import APIClient

from tests import own_cache
from tests.factories import UserFactory
from tournaments import tasks


@pytest.fixture(autouse=True)
def _clean_throttles() -> Iterator[None]:
    # Throttle counters live in the real Redis; test settings use their own key prefix.
    own_cache.clear()
    yield
    own_cache.clear()


@dataclass
class Enqueued:
    play_match: list[str] = field(default_factory=list)
    validate_bot_version: list[int] = field(default_factory=list)


@pytest.fixture
def enqueued(monkeypatch: pytest.MonkeyPatch) -> Enqueued:
    """Tasks sent to the broker are recorded instead (the workers are not what is under test)."""
    record = Enqueued()
    monkeypatch.setattr(tasks.play_match, "delay", record.play_match.append)
    # A match with a person's seat wakes a worker on the people's queue: a match to play too.
    monkeypatch.setattr(tasks.play_person_match, "delay", record.play_match.append)
    monkeypatch.setattr(tasks.validate_bot_version, "delay", record.validate_bot_version.append)
    return record


@pytest.fixture
def anon() -> APIClient:
    return APIClient()


@pytest.fixture
def user(db: None) -> Any:
    return UserFactory()


@pytest.fixture
def other(db: None) -> Any:
    return UserFactory()


@pytest.fixture
def staff(db: None) -> Any:
    return UserFactory(is_staff=True)


@pytest.fixture
def client_for(db: None) -> Callable[[Any], APIClient]:
    """A client logged in with the user's API token."""

    def make(u: Any) -> APIClient:
        from rest_framework.authtoken.models import Token

        c = APIClient()
        token, _ = Token.objects.get_or_create(user=u)
        c.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        return c

    return make


@pytest.fixture
def api(client_for: Callable[[Any], APIClient], user: Any) -> APIClient:
    return client_for(user)


@pytest.fixture
def api_other(client_for: Callable[[Any], APIClient], other: Any) -> APIClient:
    return client_for(other)


@pytest.fixture
def api_staff(client_for: Callable[[Any], APIClient], staff: Any) -> APIClient:
    return client_for(staff)


def throttle_rates(**rates: str) -> Any:
    """override_settings with only the throttle rates changed (the throttles read them per request)."""
    from django.conf import settings
    from django.test import override_settings

    current: dict[str, Any] = settings.REST_FRAMEWORK
    merged = {**current, "DEFAULT_THROTTLE_RATES": {**current["DEFAULT_THROTTLE_RATES"], **rates}}
    return override_settings(REST_FRAMEWORK=merged)


class LaggingReplica:
    """The ``replica`` alias of ``replica_one_write_behind``: a second connection to the test
    database whose view is one taken earlier (a REPEATABLE READ snapshot), as a streaming standby
    that stopped replaying there serves it."""

    def __init__(self) -> None:
        self.paused = False

    def pause(self) -> None:
        """From now on the replica shows what was committed up to now, and nothing after."""
        self.catch_up()
        with connections["replica"].cursor() as cursor:
            cursor.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
            cursor.execute("SELECT 1")  # the snapshot is taken by the first query
        self.paused = True

    def catch_up(self) -> None:
        """The replica shows everything committed (replay resumed)."""
        if self.paused:
            with connections["replica"].cursor() as cursor:
                cursor.execute("ROLLBACK")
            self.paused = False


@pytest.fixture
def replica_one_write_behind(
    transactional_db: None, monkeypatch: pytest.MonkeyPatch
) -> Iterator[LaggingReplica]:
    """A replica configured and serving (its lag check answers "ok"), whose reads come from a
    second real connection to the test database; ``pause()`` makes it miss every write committed
    after (the tests commit: ``transaction=True``). The request routing is the platform's own
    (config/replica.py, tournaments/site/replica_reads.py); only the lag check is given, since
    the test database is no standby (tests/tournaments/test_replica_reads.py does the same). The
    real primary and standby: tests/faults/test_replica.py.

    The connection is made here and not named in ``DATABASES`` (whose dict Django's connections
    share), so ``replica.configured`` is told too: Django's test guard refuses queries to a
    configured alias a test did not ask for, and asking for it would have the suite create it."""
    from config import replica

    primary = connections["default"]
    alias = {**primary.settings_dict, "OPTIONS": {**primary.settings_dict["OPTIONS"]}}
    setattr(connections._connections, replica.REPLICA, type(primary)(alias, replica.REPLICA))
    monkeypatch.setattr(replica, "configured", lambda: True)
    monkeypatch.setattr(replica, "state", lambda: replica.ReplicaState("ok", 0.0, time.monotonic()))
    lagging = LaggingReplica()
    try:
        yield lagging
    finally:
        replica.end()
        connections[replica.REPLICA].close()  # a paused snapshot ends with its connection
        delattr(connections._connections, replica.REPLICA)
