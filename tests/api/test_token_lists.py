"""A token's match list and ladder ratings served the anonymous entry (tournaments/site/token_lists.py).

What must hold: a token whose answer would be anonymous's is served the shared entry (and a
rendered answer of such a token fills it for anonymous, byte for byte what anonymous is
answered); every token whose answer differs gets its own: its account is in a listed match (a
creator, a bot's owner), is staff, owns a smoke match the list would show (made before or after
the entry), owns a private bot the ratings list, or has just written. These tests commit
(``transaction=True``): generations and markers move once a write commits.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from django.test.utils import override_settings
from rest_framework.authtoken.models import Token

from tests import own_cache
from tests.factories import (
    BotVersionFactory,
    MatchFactory,
    RatingFactory,
    SeatFactory,
    UserFactory,
    finish,
)
from tournaments.competition.models import Ladder
from tournaments.play.models import Match
from tournaments.site import page_cache, token_lists

pytestmark = pytest.mark.django_db(transaction=True)

LIST = "/api/matches/?game=brexit&limit=2"


@pytest.fixture(autouse=True)
def _cached() -> Iterator[None]:
    own_cache.clear()
    # Long enough that no entry expires within a test.
    with override_settings(PAGE_CACHE_SECONDS=60.0, TOKEN_CACHE_SECONDS=60.0):
        yield
    own_cache.clear()


@pytest.fixture
def table() -> dict[str, Any]:
    """Three finished ladder matches (a list of two has an older page), one seated by a public
    bot; a private bot rated on the ladder."""
    ladder = Ladder.objects.create(name="brexit 3", game="brexit", seats=3, builtins=["random"])
    version = BotVersionFactory(bot__name="listed-bot", bot__is_public=True)
    hidden = BotVersionFactory(bot__name="hidden-bot", bot__is_public=False)
    matches = [MatchFactory(ladder=ladder, rated=True) for _ in range(3)]
    for match in matches:
        for n in range(3):
            SeatFactory(match=match, number=n, bot_version=None, builtin="random")
        finish(match)
    Match.objects.filter(pk=matches[-1].pk).update(created_by=version.bot.owner)
    for v in (version, hidden):
        RatingFactory(ladder=ladder, player=f"v:{v.pk}", bot_version=v, rating=1500.0, games=20)
    return {"ladder": ladder, "version": version, "hidden": hidden, "matches": matches}


def token_client(user: Any) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")


def get(path: str, client: Client | None = None) -> Any:
    response = (client or Client()).get(path)
    assert response.status_code == 200, response.content[:400]
    return response


def hit(response: Any) -> bool:
    return bool(response.headers.get(page_cache.SAID) == "hit")


def test_a_stranger_token_is_served_the_anonymous_entry(table: dict[str, Any]) -> None:
    stranger = token_client(UserFactory())
    get(LIST, stranger)  # its token is now known to the token cache
    anonymous = get(LIST)
    served = get(LIST, stranger)
    assert hit(served)
    assert served.content == anonymous.content


def test_a_strangers_rendered_list_is_anonymous_answer_and_fills_the_entry(
    table: dict[str, Any],
) -> None:
    own_cache.clear()
    rendered = get(LIST, token_client(UserFactory()))
    assert not hit(rendered)
    anonymous = get(LIST)
    assert hit(anonymous)
    page_cache.bump()
    assert get(LIST).content == rendered.content == anonymous.content


def _stranger_served_but_not(client: Client) -> None:
    """The entry exists and a stranger is served it; ``client`` is answered by the views."""
    stranger = token_client(UserFactory())
    get(LIST, stranger)
    get(LIST, client)
    get(LIST)
    assert hit(get(LIST, stranger))
    assert not hit(get(LIST, client))


def test_the_creator_of_a_listed_match_gets_its_own_list(table: dict[str, Any]) -> None:
    _stranger_served_but_not(token_client(table["version"].bot.owner))


def test_staff_get_their_own_list(table: dict[str, Any]) -> None:
    _stranger_served_but_not(token_client(UserFactory(is_staff=True)))


def test_a_token_whose_smoke_match_would_be_listed_gets_its_own(table: dict[str, Any]) -> None:
    """Made before the entry (the newest smoke match is asked), and after it (its making drops
    the marker): either way the token's own list shows its smoke match."""
    owner = UserFactory()
    client = token_client(owner)
    get(LIST, client)
    get(LIST)
    assert hit(get(LIST, client))  # no smoke match yet: the shared entry
    version = BotVersionFactory(bot__owner=owner, bot__game="brexit")
    smoke = MatchFactory(validation_of=version, created_by=owner)
    mine = get(LIST, client)
    assert not hit(mine)
    assert str(smoke.pk) in mine.content.decode()
    assert str(smoke.pk) not in get(LIST).content.decode()


def test_an_older_smoke_match_does_not_keep_a_token_from_the_shared_entry(
    table: dict[str, Any],
) -> None:
    owner = UserFactory()
    version = BotVersionFactory(bot__owner=owner, bot__game="brexit")
    old = MatchFactory(validation_of=version, created_by=owner)
    Match.objects.filter(pk=old.pk).update(created_at=table["matches"][0].created_at)
    client = token_client(owner)
    get(LIST, client)
    get(LIST)
    assert hit(get(LIST, client))
    # A list that reaches its oldest match (no older page) would show it: its own.
    get("/api/matches/?game=brexit")
    assert not hit(get("/api/matches/?game=brexit", client))


def test_a_smoke_match_of_another_game_does_not_keep_a_token_from_a_games_list(
    table: dict[str, Any],
) -> None:
    """A list of brexit matches lists no brasilis bot's smoke match, however new: the owner is
    served the shared entry there, and its own answer where one of its games' lists would."""
    owner = UserFactory()
    version = BotVersionFactory(bot__owner=owner, bot__game="brasilis")
    smoke = MatchFactory(validation_of=version, created_by=owner, game="brasilis")
    client = token_client(owner)
    for path in (LIST, "/api/matches/?game=brexit", "/api/matches/?game=brasilis&limit=2"):
        get(path, client)
        get(path)
    assert hit(get(LIST, client))
    assert hit(get("/api/matches/?game=brexit", client))  # back to the first match: still none
    mine = get("/api/matches/?game=brasilis&limit=2", client)
    assert not hit(mine) and str(smoke.pk) in mine.content.decode()
    get("/api/matches/?limit=2")
    assert not hit(get("/api/matches/?limit=2", client))  # every game's list: its own


def test_a_token_that_just_wrote_gets_its_own_list(table: dict[str, Any]) -> None:
    author = UserFactory()
    client = token_client(author)
    get(LIST, client)
    get(LIST)
    assert hit(get(LIST, client))
    made = client.post(
        "/api/bots/", {"name": "fresh-bot", "game": "brexit"}, content_type="application/json"
    )
    assert made.status_code == 201, made.content
    assert cache.get(token_lists.wrote_key(author.pk)) is not None
    new = finish(MatchFactory(created_by=author))  # as its challenge would
    mine = get(LIST, client)
    assert not hit(mine)
    assert str(new.pk) in mine.content.decode()


def test_ratings_are_shared_except_with_a_listed_bots_owner(table: dict[str, Any]) -> None:
    path = f"/api/ladders/{table['ladder'].pk}/ratings/"
    stranger = token_client(UserFactory())
    owner = token_client(table["hidden"].bot.owner)
    get(path, stranger)
    get(path, owner)
    anonymous = get(path)
    assert "hidden-bot" not in anonymous.content.decode()
    served = get(path, stranger)
    assert hit(served)
    assert served.content == anonymous.content
    own = get(path, owner)
    assert not hit(own)
    assert "hidden-bot" in own.content.decode()
    # And the owner's answer was not stored for anyone else.
    assert "hidden-bot" not in get(path).content.decode()
