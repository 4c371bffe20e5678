"""The API's replay reads of a match that is over, served as stored bytes
(tournaments/site/settled_reads.py), at both its doors: a state at a step and a page of events.

What must hold: a read by a caller with nothing to do with the match (anonymous, or another
account's token) is served from the cache without a query; the match's own people (its bots'
owner, its creator) and staff are never served a shared entry, nor store one; a match still
playing and a smoke match are never stored; a write that hides something (a bot made private, the
match deleted) or a revoked token takes effect on the very next request (these tests commit:
``transaction=True``, so the writes' own commits set the new generations).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.factories import BotVersionFactory, UserFactory
from tests.viewer.conftest import play, running_copy
from tournaments.play.models import Bot, Match, Seat
from tournaments.play.visibility import PRIVATE_BOT
from tournaments.site import settled_reads

pytestmark = pytest.mark.django_db(transaction=True)

HIT = settled_reads.SAID


@pytest.fixture(autouse=True)
def _cached() -> Iterator[None]:
    with override_settings(SETTLED_READS_SECONDS=60.0, TOKEN_CACHE_SECONDS=60.0):
        yield


@pytest.fixture
def owner() -> Any:
    return UserFactory()


@pytest.fixture
def finished(owner: Any) -> Match:
    """A finished Brexit match whose seat 0 is ``owner``'s (public) bot."""
    match = play("brexit", 3, owner, seed=5)
    Bot.objects.filter(versions__seats__match=match).update(is_public=True)
    return match


def doors(match: Match) -> list[str]:
    half = match.last_version // 2
    return [
        f"/api/matches/{match.pk}/state/?step={half}&view=public",
        f"/api/matches/{match.pk}/state/?view=seat1",
        f"/api/matches/{match.pk}/events/?after={half}&limit=20",
    ]


def token_client(user: Any) -> APIClient:
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def read(client: APIClient, path: str) -> Any:
    response = client.get(path)
    assert response.status_code == 200, response.content[:400]
    return response


def test_an_unrelated_callers_second_read_is_served_without_a_query(finished: Match) -> None:
    """Anonymous stores, another account's token is served the same bytes (and vice versa). A
    state read after the first (which folded the match whole) is drawn from the kept fold for
    both instead: nothing stored, no query either."""
    other = token_client(UserFactory())
    read(other, "/api/bots/")  # the token is now in the token cache
    then = {"miss": "hit", "drawn": "drawn"}
    seen = []
    for path in doors(finished):
        first = read(APIClient(), path)
        seen.append(first[HIT])
        with CaptureQueriesContext(connection) as queries:
            served = read(other, path)
        assert len(queries) == 0, (path, [q["sql"] for q in queries])
        assert served[HIT] == then[first[HIT]], path
        assert served.content == first.content, path
    assert seen == ["miss", "drawn", "miss"]


def test_the_matchs_own_people_and_staff_are_never_served_a_shared_entry(
    finished: Match, owner: Any
) -> None:
    staff = UserFactory(is_staff=True)
    for path in doors(finished):
        stored = read(APIClient(), path)
        for user in (owner, staff):
            client = token_client(user)
            read(client, "/api/bots/")
            for _ in range(2):  # nor do their reads store anything of their own
                response = read(client, path)
                assert HIT not in response, (path, user)
        assert read(APIClient(), path).content == stored.content
    # The owner's events carry what only they read: not the bytes stored for everyone else.
    events = doors(finished)[2]
    assert read(token_client(owner), events).json()["view"]["seats"] == [0]
    assert read(APIClient(), events).json()["view"]["seats"] == []


def test_a_match_still_playing_is_never_stored(finished: Match) -> None:
    running = running_copy(finished, finished.last_version // 2)
    path = f"/api/matches/{running.pk}/state/?view=public"
    for _ in range(2):
        assert HIT not in read(APIClient(), path)


def test_a_smoke_match_is_never_stored(finished: Match, owner: Any) -> None:
    version = Seat.objects.get(match=finished, number=0).bot_version
    Match.objects.filter(pk=finished.pk).update(validation_of=version)
    path = doors(finished)[0]
    for _ in range(2):
        assert HIT not in read(token_client(owner), path)
    assert APIClient().get(path).status_code == 404


def test_a_bot_made_private_is_hidden_on_the_very_next_read(finished: Match) -> None:
    events = f"/api/matches/{finished.pk}/events/?after=0&limit=5"
    name = Bot.objects.get(versions__seats__match=finished).name
    assert name in read(APIClient(), events).content.decode()
    assert read(APIClient(), events)[HIT] == "hit"
    bot = Bot.objects.get(versions__seats__match=finished)
    bot.is_public = False
    bot.save()
    again = read(APIClient(), events)
    assert HIT not in again or again[HIT] == "miss"
    assert name not in again.content.decode() and PRIVATE_BOT in again.content.decode()


def test_a_deleted_match_is_not_served(finished: Match) -> None:
    path = doors(finished)[0]
    read(APIClient(), path)
    assert read(APIClient(), path)[HIT] == "hit"
    Match.objects.filter(pk=finished.pk).delete()
    assert APIClient().get(path).status_code == 404


def test_a_revoked_token_is_refused_on_the_very_next_read(finished: Match) -> None:
    user = UserFactory()
    client = token_client(user)
    path = doors(finished)[0]
    read(APIClient(), path)
    read(client, "/api/bots/")
    assert read(client, path)[HIT] == "hit"
    Token.objects.filter(user=user).delete()
    assert client.get(path).status_code == 401


def test_a_token_the_cache_does_not_know_is_authenticated_by_the_views(finished: Match) -> None:
    path = doors(finished)[0]
    read(APIClient(), path)
    stranger = APIClient()
    stranger.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    assert stranger.get(path).status_code == 401
    client = token_client(UserFactory())
    assert read(client, path)[HIT] == "miss"  # rendered (and stored again), its token kept
    assert read(client, path)[HIT] == "hit"


def test_the_owner_of_any_seated_bot_is_the_matchs_own(owner: Any) -> None:
    """An account that owns a bot in the match is its people even when the bot is not seat 0."""
    match = play("brexit", 3, None, seed=6)
    second = UserFactory()
    version = BotVersionFactory(bot__owner=second, bot__game="brexit")
    Seat.objects.filter(match=match, number=2).update(bot_version=version, builtin="")
    path = f"/api/matches/{match.pk}/events/?after=0&limit=5"
    read(APIClient(), path)
    assert read(APIClient(), path)[HIT] == "hit"
    client = token_client(second)
    read(client, "/api/bots/")
    assert HIT not in read(client, path)
    assert read(client, path).json()["view"]["seats"] == [2]


def test_a_state_drawn_from_the_replay_cache_is_the_views_answer_byte_for_byte(
    finished: Match,
) -> None:
    """A state read whose observation the replay cache holds is answered without the views once
    the match's header is known: the same bytes and headers as the views', at every kind of step
    (none, 0, inside, past the last shown) and view."""
    other = token_client(UserFactory())
    read(other, f"/api/matches/{finished.pk}/state/?view=all&step=3")  # the header, the token
    last = finished.last_version
    asked = [
        f"step={step}&view={view}"
        for step in (0, 1, last // 2, last)
        for view in ("public", "seat0", "seat2", "all", "%20seat1")
    ] + ["view=public", "step=7", "", "step=0005&view=all"]
    for query in asked:
        path = f"/api/matches/{finished.pk}/state/?{query}"
        with override_settings(SETTLED_READS_SECONDS=0):
            rendered = read(APIClient(), path)  # and its observation kept by the replay cache
        with CaptureQueriesContext(connection) as queries:
            drawn = read(other, path)
        assert drawn[HIT] == "drawn", query
        assert len(queries) == 0, query
        assert drawn.content == rendered.content, query
        assert {k: v for k, v in drawn.headers.items() if k != HIT} == dict(
            rendered.headers.items()
        ), query


def test_a_state_never_read_is_drawn_from_the_kept_fold_byte_for_byte(finished: Match) -> None:
    """Once a read folded the finished match whole, a step and view nobody read before (its
    observation not kept) is drawn from the fold's kept blocks, no query, the views' bytes."""
    other = token_client(UserFactory())
    read(other, f"/api/matches/{finished.pk}/state/?view=all&step=3")  # the fold, the header
    last = finished.last_version
    for query in (f"step={last // 2}&view=seat1", f"step={last}&view=all", "view=seat2"):
        path = f"/api/matches/{finished.pk}/state/?{query}"
        with CaptureQueriesContext(connection) as queries:
            drawn = read(other, path)
        assert drawn[HIT] == "drawn", query
        assert len(queries) == 0, query
        with override_settings(SETTLED_READS_SECONDS=0):
            rendered = read(APIClient(), path)
        assert drawn.content == rendered.content, query


@pytest.mark.parametrize(
    "query",
    ["step=-1", "step=99999", "step=1.5", "view=seat9", "step=1&step=2", "step=1&limit=3"],
)
def test_a_state_read_the_replay_cache_cannot_answer_goes_to_the_views(
    finished: Match, query: str
) -> None:
    read(APIClient(), f"/api/matches/{finished.pk}/state/?view=public")
    path = f"/api/matches/{finished.pk}/state/?{query}"
    with override_settings(SETTLED_READS_SECONDS=0):
        expected = APIClient().get(path)
    response = APIClient().get(path)
    assert response.get(HIT) != "drawn"
    assert (response.status_code, response.content) == (expected.status_code, expected.content)


def test_a_page_of_events_drawn_from_the_replay_cache_is_the_views_answer_byte_for_byte(
    finished: Match,
) -> None:
    """As for a state: pages with and without a next link, across blocks, past the end."""
    other = token_client(UserFactory())
    read(other, f"/api/matches/{finished.pk}/events/?after=1&limit=1")
    last = finished.last_version
    asked = [
        "",
        "after=0&limit=5",
        "limit=150&after=40",
        f"after={last - 3}&limit=2",
        f"after={last - 3}",
        f"after={last}",
        f"after={last + 10}&limit=1",
        "after=99&limit=1",
    ]
    for query in asked:
        path = f"/api/matches/{finished.pk}/events/?{query}"
        with override_settings(SETTLED_READS_SECONDS=0):
            rendered = read(APIClient(), path)  # and its blocks kept by the replay cache
        with CaptureQueriesContext(connection) as queries:
            drawn = read(other, path)
        assert drawn[HIT] == "drawn", query
        assert len(queries) == 0, query
        assert drawn.content == rendered.content, query
        assert {k: v for k, v in drawn.headers.items() if k != HIT} == dict(
            rendered.headers.items()
        ), query


@pytest.mark.parametrize("query", ["after=-1", "limit=0", "limit=5001", "seat=0", "after=x"])
def test_a_page_the_replay_cache_cannot_answer_goes_to_the_views(
    finished: Match, query: str
) -> None:
    read(APIClient(), f"/api/matches/{finished.pk}/events/?after=1&limit=1")
    path = f"/api/matches/{finished.pk}/events/?{query}"
    with override_settings(SETTLED_READS_SECONDS=0):
        expected = APIClient().get(path)
    response = APIClient().get(path)
    assert response.get(HIT) != "drawn"
    assert (response.status_code, response.content) == (expected.status_code, expected.content)


def test_a_new_engine_version_serves_none_of_the_old_bytes(
    finished: Match, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A release whose rules fold or show the same events differently: nothing stored before is
    served (the stored bytes, the header or a drawn answer)."""
    from games.engine.registry import get

    path = doors(finished)[0]
    read(APIClient(), path)
    assert read(APIClient(), path)[HIT] == "hit"
    rules = get("brexit").rules
    monkeypatch.setattr(rules, "engine_version", rules.engine_version + "-next")
    assert read(APIClient(), path)[HIT] == "miss"


@pytest.mark.parametrize("tail", ["state/%0A", "events/%0A", "state/%0A%0A", "events/x"])
def test_a_path_past_a_door_is_the_views_404_never_a_stored_or_drawn_answer(
    finished: Match, tail: str
) -> None:
    """``$`` matched before a final newline, so ``/state/%0A`` was answered 200 from the replay
    cache; the URL resolver has no such route."""
    for door in ("state/?view=public", "events/?after=0&limit=5"):
        read(APIClient(), f"/api/matches/{finished.pk}/{door}")  # the header and replay cache
    path = f"/api/matches/{finished.pk}/{tail}"
    for query in ("", "?view=public", "?after=0&limit=5"):
        response = APIClient().get(path + query)
        assert response.status_code == 404, (path + query, response.status_code)
        assert HIT not in response, path + query


@pytest.mark.parametrize("view", ["seat\u0661", "seat\uff11", "seat\u0661\u0660"])
def test_a_view_named_with_other_digits_is_no_view_drawn_or_rendered(
    finished: Match, view: str
) -> None:
    """Only ASCII digits name a seat: ``\\d`` read an Arabic-Indic or full-width one as seat 1."""
    read(APIClient(), f"/api/matches/{finished.pk}/state/?view=public")
    path = f"/api/matches/{finished.pk}/state/"
    for _ in range(2):
        response = APIClient().get(path, {"view": view})
        assert response.status_code == 400, (view, response.status_code)
        assert "view" in response.json(), view
