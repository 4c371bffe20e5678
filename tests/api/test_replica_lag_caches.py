"""The page cache and settled reads behind a lagging replica (issue 26's review).

A write that hides something (a bot made private) sets a new visibility generation once it
commits; the replica may not have that write for up to ``REPLICA_READ_YOUR_WRITES_SECONDS``. A page
rendered from the replica in that window shows what the write hid, and stored under the new
generation it would be served until it expired (``SETTLED_READS_SECONDS``: ten minutes). Such a
page is served (the replica may lag, that is the bargain) but not stored; a page read from the
replica after the window, or from the primary, is stored as before.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from django.test.utils import override_settings
from rest_framework.test import APIClient

from tests.api.conftest import LaggingReplica
from tests.factories import BotVersionFactory, MatchFactory, SeatFactory, UserFactory, finish
from tests.viewer.conftest import play
from tournaments.play.models import Bot
from tournaments.play.visibility import PRIVATE_BOT
from tournaments.site import page_cache, settled_reads

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _cached() -> Iterator[None]:
    with override_settings(
        PAGE_CACHE_SECONDS=60.0, SETTLED_READS_SECONDS=60.0, REPLICA_READ_YOUR_WRITES_SECONDS=60.0
    ):
        yield


def _anonymous(path: str) -> Any:
    response = Client().get(path)
    assert response.status_code == 200, response.content[:400]
    return response


def _made_private(bot: Bot) -> None:
    """By its owner's API call (a PATCH, committed: the commit sets the new generation)."""
    owner = APIClient()
    owner.force_authenticate(bot.owner)
    response = owner.patch(f"/api/bots/{bot.pk}/", {"is_public": False}, format="json")
    assert response.status_code == 200, response.content


@pytest.fixture
def listed() -> Bot:
    version = BotVersionFactory(bot__name="sneaky-bot", bot__is_public=True)
    match = MatchFactory()
    SeatFactory(match=match, number=0, bot_version=version)
    finish(match)
    return version.bot


@pytest.mark.parametrize("path", ["/", "/matches/", "/api/matches/"])
def test_a_page_the_lagging_replica_rendered_after_a_hiding_write_is_served_not_stored(
    replica_one_write_behind: LaggingReplica, listed: Bot, path: str
) -> None:
    replica_one_write_behind.pause()
    _made_private(listed)
    stale = _anonymous(path)
    assert "sneaky-bot" in stale.content.decode()  # the proof that the replica served it
    assert page_cache.SAID not in stale
    replica_one_write_behind.catch_up()
    fresh = _anonymous(path)
    assert "sneaky-bot" not in fresh.content.decode() and PRIVATE_BOT in fresh.content.decode()
    assert page_cache.SAID not in fresh  # still within the window
    # The window is the read-your-writes one; once it ends the replica's pages are kept again.
    client = cache._cache.get_client(write=False)  # type: ignore[attr-defined]
    assert 59_000 < client.pttl(cache.make_and_validate_key(page_cache.FRESH)) <= 60_000
    cache.delete(page_cache.FRESH)
    assert _anonymous(path)[page_cache.SAID] == "miss"
    assert _anonymous(path)[page_cache.SAID] == "hit"


def test_a_replay_read_the_lagging_replica_rendered_after_a_hiding_write_is_not_stored(
    replica_one_write_behind: LaggingReplica,
) -> None:
    match = play("brexit", 3, UserFactory(), seed=5)
    Bot.objects.filter(versions__seats__match=match).update(is_public=True)
    bot = Bot.objects.get(versions__seats__match=match)
    events = f"/api/matches/{match.pk}/events/?after=0&limit=5"
    replica_one_write_behind.pause()
    _made_private(bot)
    stale = _anonymous(events)
    assert bot.name in stale.content.decode()  # the replica served it
    assert settled_reads.SAID not in stale
    replica_one_write_behind.catch_up()
    fresh = _anonymous(events).content.decode()
    assert bot.name not in fresh and PRIVATE_BOT in fresh
