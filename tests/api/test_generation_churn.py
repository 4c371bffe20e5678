"""One account cannot empty every cache (issue 26's review): the page cache's generation is set
anew only by a write that changes what the cached pages show (a bot's name, visibility, state or
owner; an account's name or state), the token cache's only by one that changes what an entry holds
or whether a key works; and the bot writes that do retire every page are rate-limited per account.

These tests commit (``transaction=True``): the writes' own commits set the new generations.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from django.test.utils import override_settings
from rest_framework.test import APIClient

from tests.api.conftest import throttle_rates
from tests.factories import BotVersionFactory, MatchFactory, SeatFactory, UserFactory, finish
from tournaments.play.models import Bot, BotVersion
from tournaments.play.visibility import PRIVATE_BOT
from tournaments.site import page_cache
from tournaments.site.api import token_cache

pytestmark = pytest.mark.django_db(transaction=True)

PAGES = ["/", "/matches/", "/api/matches/"]


@pytest.fixture(autouse=True)
def _cached() -> Iterator[None]:
    with override_settings(PAGE_CACHE_SECONDS=60.0, TOKEN_CACHE_SECONDS=60.0):
        yield


@pytest.fixture
def bot() -> Bot:
    """A public bot seated in a finished match (named on every cached page), with two ready
    versions."""
    version = BotVersionFactory(
        bot__name="sneaky-bot", bot__is_public=True, status=BotVersion.Status.READY
    )
    BotVersionFactory(bot=version.bot, number=2, status=BotVersion.Status.READY)
    match = MatchFactory()
    SeatFactory(match=match, number=0, bot_version=version)
    finish(match)
    return version.bot


def owner_client(bot: Bot) -> APIClient:
    """The owner's API client, by token, as a script sends it."""
    from rest_framework.authtoken.models import Token

    client = APIClient()
    key = Token.objects.get_or_create(user=bot.owner)[0].key
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def cached(path: str) -> tuple[str | None, str]:
    response = Client().get(path)
    assert response.status_code == 200, response.content[:300]
    return response.get(page_cache.SAID), response.content.decode()


def stored(paths: list[str]) -> None:
    for path in paths:
        cached(path)
        assert cached(path)[0] == "hit", path


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("patch", "", {"description": "now with more cards"}),
        ("patch", "", {"webhook_url": "https://example.com/hook"}),
        ("patch", "", {"is_public": True, "name": "sneaky-bot"}),  # as they were
        ("put", "", {"game": "brexit", "name": "sneaky-bot", "description": "put"}),
        ("post", "activate/", {"number": 1}),
    ],
)
def test_a_write_that_changes_nothing_a_page_shows_leaves_the_pages_cached(
    bot: Bot, method: str, path: str, body: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tournaments.play import webhooks

    monkeypatch.setattr(webhooks, "check_url", lambda url: None)  # no resolver in the test
    stored(PAGES)
    before = cache.get(page_cache.GENERATION)
    response = getattr(owner_client(bot), method)(f"/api/bots/{bot.pk}/{path}", body, format="json")
    assert response.status_code == 200, response.content
    assert cache.get(page_cache.GENERATION) == before
    for page in PAGES:
        assert cached(page)[0] == "hit", page


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("patch", "", {"name": "renamed-bot"}),
        ("patch", "", {"is_public": False}),
        ("patch", "", {"is_active": False}),
        ("delete", "", None),
        ("post", "deactivate/", None),
    ],
)
def test_a_name_visibility_or_state_change_retires_every_page_at_once(
    bot: Bot, method: str, path: str, body: dict[str, Any] | None
) -> None:
    stored(PAGES)
    response = getattr(owner_client(bot), method)(f"/api/bots/{bot.pk}/{path}", body, format="json")
    assert response.status_code in (200, 204), response.content
    for page in PAGES:
        said, content = cached(page)
        assert said == "miss", page
    if body == {"is_public": False}:
        assert "sneaky-bot" not in content and PRIVATE_BOT in content
    if body == {"name": "renamed-bot"}:
        assert "renamed-bot" in content


@pytest.mark.parametrize(
    "write",
    [
        {"is_public": False},
        {"is_active": False},
        {"name": "renamed-bot"},
        ["is_public"],  # bulk_update of the column
    ],
)
def test_a_queryset_write_of_what_pages_show_retires_every_page_as_a_save_does(
    bot: Bot, write: Any
) -> None:
    """A staff's bulk action or a service that writes bots through ``update()`` or
    ``bulk_update()`` sends no save signal: the bots' queryset (``row_changes.WatchedQuerySet``)
    calls the same ``on_change`` as a save, so no page or settled read outlives the write."""
    stored(PAGES)
    if isinstance(write, dict):
        assert Bot.objects.filter(pk=bot.pk).update(**write) == 1
    else:
        bot.is_public = False
        assert Bot.objects.bulk_update([bot], write) == 1
    for page in PAGES:
        said, content = cached(page)
        assert said == "miss", page
    if write != {"name": "renamed-bot"} and write != {"is_active": False}:
        assert "sneaky-bot" not in content and PRIVATE_BOT in content


def test_a_queryset_write_of_nothing_pages_show_leaves_them_cached(bot: Bot) -> None:
    stored(PAGES)
    assert Bot.objects.filter(pk=bot.pk).update(description="bulk words") == 1
    assert Bot.objects.filter(pk=-1).update(is_public=False) == 0  # no row written
    for page in PAGES:
        assert cached(page)[0] == "hit", page


def test_an_account_edit_or_a_login_keeps_both_caches_and_its_name_or_state_retires_them() -> None:
    user: Any = UserFactory()
    gens = (page_cache.GENERATION, token_cache.GENERATION)
    page_cache.bump()
    token_cache.bump()
    before = cache.get_many(gens)
    user.first_name, user.email = "Ada", "ada@example.com"
    user.save()  # a profile edit: every column written
    user.save(update_fields=["last_login"])
    assert cache.get_many(gens) == before
    user.username = "ada-renamed"
    user.save()
    after = cache.get_many(gens)
    assert all(after[g] != before[g] for g in gens)


def test_a_password_change_retires_the_tokens_but_not_the_pages() -> None:
    user = UserFactory()
    gens = (page_cache.GENERATION, token_cache.GENERATION)
    page_cache.bump()
    token_cache.bump()
    before = cache.get_many(gens)
    user.set_password("a-new-long-password-1")
    user.save()
    after = cache.get_many(gens)
    assert after[page_cache.GENERATION] == before[page_cache.GENERATION]
    assert after[token_cache.GENERATION] != before[token_cache.GENERATION]


def test_changes_that_retire_every_page_are_rate_limited_per_account(bot: Bot) -> None:
    client = owner_client(bot)
    url = f"/api/bots/{bot.pk}/"
    with throttle_rates(visibility="2/hour"):
        for public in (False, True):
            assert client.patch(url, {"is_public": public}, format="json").status_code == 200
        refused = client.patch(url, {"is_public": False}, format="json")
        assert refused.status_code == 429
        assert "visibility" in refused.json()["detail"]
        assert int(refused["Retry-After"]) > 0
        # What retires nothing is not counted nor refused: a description, a no-op, a 400.
        assert client.patch(url, {"description": "x"}, format="json").status_code == 200
        assert client.patch(url, {"is_public": True}, format="json").status_code == 200
        assert client.patch(url, {"name": ""}, format="json").status_code == 400
        assert client.post(f"{url}deactivate/").status_code == 429
        # Another account has a budget of its own.
        other: Any = BotVersionFactory(bot__is_public=True).bot
        assert owner_client(other).delete(f"/api/bots/{other.pk}/").status_code == 204
    assert Bot.objects.get(pk=bot.pk).is_public


def site_client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_site_s_bot_page_past_the_visibility_budget_is_a_429_page_that_changes_nothing(
    bot: Bot,
) -> None:
    """The bot page's form makes a bot public or private: each retires every cached page, so it
    is counted as the API's changes are. Past the budget the page comes back with a 429 and
    says why, and neither the bot nor the pages' generation change."""
    site = site_client(bot.owner)
    url = f"/bots/{bot.pk}/manage/"
    with throttle_rates(visibility="2/hour"):
        assert site.post(url, {"description": ""}).status_code == 302  # made private
        assert site.post(url, {"description": "", "is_public": "on"}).status_code == 302
        before = cache.get(page_cache.GENERATION)
        refused = site.post(url, {"description": "hide it"})
        # A description alone retires nothing: neither counted nor refused.
        kept = site.post(url, {"description": "new words", "is_public": "on"})
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    page = refused.content.decode()
    assert "as often as it may (2/hour, on this site and through the API together)" in page
    assert "Try again in" in page and 'name="description"' in page  # the page, not a trace
    assert "hide it" in page  # what was typed, kept in the form
    assert kept.status_code == 302
    changed = Bot.objects.get(pk=bot.pk)
    assert changed.is_public and changed.description == "new words"
    assert cache.get(page_cache.GENERATION) == before


def test_the_api_and_the_site_share_one_visibility_budget_per_account(bot: Bot) -> None:
    site, api = site_client(bot.owner), owner_client(bot)
    page, resource = f"/bots/{bot.pk}/manage/", f"/api/bots/{bot.pk}/"
    with throttle_rates(visibility="2/hour"):
        assert api.patch(resource, {"is_public": False}, format="json").status_code == 200
        assert site.post(page, {"description": "", "is_public": "on"}).status_code == 302
        assert api.patch(resource, {"is_public": False}, format="json").status_code == 429
        assert site.post(page, {"description": ""}).status_code == 429
    assert Bot.objects.get(pk=bot.pk).is_public


def test_token_revocations_and_password_changes_share_a_budget_past_which_nothing_is_done() -> None:
    """Each empties the token cache; past the account's ``tokens`` budget the page says so with
    a 429, the token stays and works, the password stays, and the generation is the same."""
    from tournaments.play import services

    user: Any = UserFactory()
    site = site_client(user)
    made = [services.create_token(user=user, name=f"t{n}") for n in range(3)]
    password = "/accounts/password/"
    new = {"new_password1": "another-Passphrase-7", "new_password2": "another-Passphrase-7"}
    with throttle_rates(tokens="2/hour"):
        assert site.post(f"/accounts/tokens/{made[0][0].pk}/revoke/").status_code == 302
        assert site.post(password, {"old_password": "pass-word-123", **new}).status_code == 302
        before = cache.get(token_cache.GENERATION)
        refused = site.post(f"/accounts/tokens/{made[1][0].pk}/revoke/")
        again = {"old_password": "another-Passphrase-7"} | {k: "third-Passphrase-5" for k in new}
        no_change = site.post(password, again)
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "revoked tokens or changed its password as often as it may (2/hour)" in (
        refused.content.decode()
    )
    assert "Revoke t1" in refused.content.decode()  # the account page, its tokens listed
    assert no_change.status_code == 429 and "Try again in" in no_change.content.decode()
    assert cache.get(token_cache.GENERATION) == before
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {made[1][1]}")
    assert api.get("/api/accounts/me/").status_code == 200
    user.refresh_from_db()
    assert user.check_password("another-Passphrase-7")
