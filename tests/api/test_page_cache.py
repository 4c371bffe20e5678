"""The anonymous page cache (tournaments/site/page_cache.py) at each of its doors: home, the site's
match list, a ladder's page and the API's match list.

What must hold: an anonymous read is served from the cache; nothing made private is served from
it on the very next request (the write's own commit sets a new generation, so these tests commit:
``transaction=True``); a logged-in visitor is never served a shared entry, nor stores one; an
entry lives ``PAGE_CACHE_SECONDS`` at most.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import Client
from django.test.utils import override_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.factories import BotVersionFactory, MatchFactory, RatingFactory, SeatFactory, finish
from tests.support.processes import wait_until
from tournaments.competition.models import Ladder
from tournaments.play.models import Match
from tournaments.play.visibility import PRIVATE_BOT
from tournaments.site import page_cache

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _cached() -> Iterator[None]:
    # Long enough that no entry expires within a test unless the test says otherwise.
    with override_settings(PAGE_CACHE_SECONDS=60.0):
        yield


@pytest.fixture
def table() -> dict[str, Any]:
    """A ladder match seated by a public bot (named on every door), with the bot's rating."""
    ladder = Ladder.objects.create(name="brexit 3", game="brexit", seats=3, builtins=["random"])
    version = BotVersionFactory(bot__name="sneaky-bot", bot__is_public=True)
    match = MatchFactory(ladder=ladder, rated=True)
    SeatFactory(match=match, number=0, bot_version=version)
    for n in (1, 2):
        SeatFactory(match=match, number=n, bot_version=None, builtin="random")
    finish(match)
    RatingFactory(
        ladder=ladder, player=f"v:{version.pk}", bot_version=version, rating=1600.0, games=20
    )
    return {"ladder": ladder, "version": version, "match": match}


def doors(ladder: Ladder) -> list[str]:
    return ["/", "/matches/", f"/ladders/{ladder.pk}/", "/api/matches/"]


def read(path: str, client: Client | None = None) -> str:
    response = (client or Client()).get(path)
    assert response.status_code == 200, response.content[:400]
    return response.content.decode()


def test_an_anonymous_read_is_served_from_the_cache_until_a_new_generation(
    table: dict[str, Any],
) -> None:
    """A match made after the first read (which hides nothing, so no new generation) is not on
    the doors' second read: they came from the cache. A new generation shows it."""
    paths = doors(table["ladder"])
    newcomer = BotVersionFactory(bot__name="newcomer-bot")
    first = {path: read(path) for path in paths}
    newer = MatchFactory(ladder=table["ladder"], rated=True)
    SeatFactory(match=newer, number=0, bot_version=newcomer)
    finish(newer)
    for path in paths:
        again = read(path)
        assert again == first[path], path
        assert str(newer.pk) not in again, path
    page_cache.bump()
    for path in paths:
        assert str(newer.pk) in read(path), path


def test_a_bot_made_private_leaves_every_cached_door_on_the_next_request(
    table: dict[str, Any],
) -> None:
    """Through the owner's own API call (PATCH, committed), as it happens in production."""
    paths = doors(table["ladder"])
    for path in paths:
        assert "sneaky-bot" in read(path), path
        assert "sneaky-bot" in read(path), path  # the second one is the cached copy
    owner = APIClient()
    owner.force_authenticate(table["version"].bot.owner)
    r = owner.patch(f"/api/bots/{table['version'].bot_id}/", {"is_public": False}, format="json")
    assert r.status_code == 200, r.content
    for path in paths:
        page = read(path)
        assert "sneaky-bot" not in page, path
        assert PRIVATE_BOT in page, path


def test_a_deleted_match_leaves_the_cached_lists(table: dict[str, Any]) -> None:
    match_id = str(table["match"].pk)
    for path in ("/matches/", "/api/matches/"):
        assert match_id in read(path)
    Match.objects.filter(pk=table["match"].pk).delete()  # the admin's delete: a bulk delete
    for path in ("/matches/", "/api/matches/"):
        assert match_id not in read(path), path


def test_a_logged_in_visitor_is_never_served_nor_stores_a_shared_entry(
    table: dict[str, Any],
) -> None:
    """The owner of a private bot sees it named; anonymous visitors never do, in either order."""
    bot = table["version"].bot
    bot.is_public = False
    bot.save(update_fields=["is_public"])
    owner = Client()
    owner.force_login(bot.owner)
    # A real token: the cache tells the API's callers apart by what they send, as production
    # does (force_authenticate sends nothing).
    token_client = APIClient()
    token_client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=bot.owner).key}")
    for path in doors(table["ladder"]):
        anonymous = read(path)
        assert "sneaky-bot" not in anonymous, path
        # After an anonymous read (stored): the owner still sees their own bot...
        mine = read(path, token_client if path.startswith("/api/") else owner)
        assert "sneaky-bot" in mine, path
        # ...and what the owner was shown was not stored for anyone else.
        assert "sneaky-bot" not in read(path), path
    assert "Log out" in read("/", owner)


def test_a_session_cookie_or_a_token_goes_past_the_cache(table: dict[str, Any]) -> None:
    """Whoever sends a session cookie, a messages cookie or (API) an Authorization header is
    answered by the views, even when an anonymous entry exists for the URL."""
    assert page_cache.entry_key(_request("/", {})) is not None
    assert page_cache.entry_key(_request("/", {settings.SESSION_COOKIE_NAME: "x"})) is None
    assert page_cache.entry_key(_request("/matches/", {"messages": "x"})) is None
    assert page_cache.entry_key(_request("/api/matches/", {}, HTTP_AUTHORIZATION="Token t")) is None
    assert page_cache.entry_key(_request("/matches/", {}, HTTP_AUTHORIZATION="Token t")) is not None
    # Pages of one visitor are not cached at all (a match's viewer page: only once it is over,
    # tests/viewer/test_read_cache.py).
    for path in ("/bots/mine/", "/accounts/", "/api/bots/"):
        assert page_cache.entry_key(_request(path, {})) is None, path


def test_an_entry_lives_page_cache_seconds_at_most(table: dict[str, Any]) -> None:
    """The live lists lag by PAGE_CACHE_SECONDS at most: each entry expires in Redis by then."""
    with override_settings(PAGE_CACHE_SECONDS=1.0):
        late = BotVersionFactory()
        read("/matches/")
        key = page_cache.entry_key(_request("/matches/", {}))
        assert key is not None
        client = cache._cache.get_client(write=False)  # type: ignore[attr-defined]
        assert 0 < client.pttl(cache.make_and_validate_key(key)) <= 1000
        newer = MatchFactory()
        SeatFactory(match=newer, number=0, bot_version=late)
        finish(newer)
        assert str(newer.pk) not in read("/matches/")
        wait_until(lambda: str(newer.pk) in read("/matches/"), 5, "the entry to expire")


def test_the_api_authenticates_only_as_the_cache_expects() -> None:
    """The cache takes a request without a session cookie or an Authorization header for
    anonymous: a new way of authenticating to the API must be taught to it first."""
    assert settings.REST_FRAMEWORK["DEFAULT_AUTHENTICATION_CLASSES"] == list(
        page_cache.API_AUTHENTICATION
    )


def _request(path: str, cookies: dict[str, str], **meta: Any) -> Any:
    from django.test import RequestFactory

    request = RequestFactory().get(path, **meta)
    request.COOKIES.update(cookies)
    return request


def test_a_page_with_a_csrf_token_is_never_shared(table: dict[str, Any]) -> None:
    """The browsable API's page (Accept: text/html) carries a CSRF token and sets its cookie:
    a token is the visitor's own, so such a page is rendered for each visitor, never stored."""
    first = Client().get("/api/matches/", HTTP_ACCEPT="text/html")
    assert first.status_code == 200
    assert "csrftoken" in first.cookies
    second = Client().get("/api/matches/", HTTP_ACCEPT="text/html")
    assert page_cache.SAID not in second
    # A JSON read of the same URL is stored and served.
    assert Client().get("/api/matches/")[page_cache.SAID] == "miss"
    assert Client().get("/api/matches/")[page_cache.SAID] == "hit"


@pytest.mark.parametrize(
    "path",
    [
        "/%0A",  # a newline
        "/matches/%0A",
        "/ladders/1/%0A",
        "/ladders/%D9%A1/",  # an Arabic-Indic one: \d matched it
        "/ladders/%EF%BC%91/",  # a full-width one
        "/api/matches/%0A",
        "/api/matches/%0A%0A",
    ],
)
def test_a_path_past_a_door_has_no_entry_and_is_the_views_404(path: str) -> None:
    """The doors end at their slash: ``$`` matched before a final newline, and ``\\d`` matched
    any script's digits, naming entries for paths the URL resolver has no route for."""
    assert "\n" in _request(path, {}).path_info or path.startswith("/ladders/%")
    assert page_cache.entry_key(_request(path, {})) is None
    for _ in range(2):
        response = Client().get(path)
        assert response.status_code == 404, path
        assert page_cache.SAID not in response, path
