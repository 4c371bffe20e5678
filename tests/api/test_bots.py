"""/api/bots/: create, list (own and public), update, deactivate, activate a version; other
users' private bots are 404."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from games.engine.storable import unstorable
from games.sandbox.upload import unprintable
from tests.factories import BotFactory, BotVersionFactory
from tournaments.play.models import Bot, BotVersion

pytestmark = pytest.mark.django_db


def test_create_bot(api: APIClient, user: Any) -> None:
    r = api.post(
        "/api/bots/", {"game": "brasilis", "name": "lula", "description": "d"}, format="json"
    )
    assert r.status_code == 201, r.content
    bot = Bot.objects.get(pk=r.data["id"])
    assert (bot.owner, bot.game, bot.name, bot.is_active) == (user, "brasilis", "lula", True)
    assert r.data["owner"] == user.username


def test_anonymous_cannot_create(anon: APIClient) -> None:
    r = anon.post("/api/bots/", {"game": "brexit", "name": "x"}, format="json")
    assert r.status_code == 401
    assert not Bot.objects.exists()


def test_unknown_game_is_a_400_on_game(api: APIClient) -> None:
    r = api.post("/api/bots/", {"game": "chess", "name": "x"}, format="json")
    assert r.status_code == 400
    assert "game" in r.data


def test_duplicate_name_is_a_400_on_name(api: APIClient, user: Any) -> None:
    BotFactory(owner=user, name="same")
    r = api.post("/api/bots/", {"game": "brexit", "name": "same"}, format="json")
    assert r.status_code == 400
    assert "already" in r.data["name"][0]


def test_list_shows_own_and_public_but_not_others_private(
    api: APIClient, user: Any, other: Any
) -> None:
    mine_private = BotFactory(owner=user, is_public=False)
    mine_inactive = BotFactory(owner=user, is_active=False)
    theirs_public = BotFactory(owner=other)
    theirs_private = BotFactory(owner=other, is_public=False)
    theirs_inactive = BotFactory(owner=other, is_active=False)
    ids = {b["id"] for b in api.get("/api/bots/").data["results"]}
    assert {mine_private.pk, mine_inactive.pk, theirs_public.pk} <= ids
    assert not {theirs_private.pk, theirs_inactive.pk} & ids


def test_list_filters_by_game(api: APIClient, user: Any) -> None:
    b1 = BotFactory(owner=user, game="brexit")
    b2 = BotFactory(owner=user, game="brasilis")
    ids = {b["id"] for b in api.get("/api/bots/?game=brasilis").data["results"]}
    assert b2.pk in ids and b1.pk not in ids


def test_anonymous_lists_public_only(anon: APIClient) -> None:
    public = BotFactory()
    private = BotFactory(is_public=False)
    ids = {b["id"] for b in anon.get("/api/bots/").data["results"]}
    assert public.pk in ids and private.pk not in ids


def test_others_private_bot_is_404(api: APIClient, other: Any) -> None:
    bot = BotFactory(owner=other, is_public=False)
    assert api.get(f"/api/bots/{bot.pk}/").status_code == 404


def test_staff_sees_private_bots(api_staff: APIClient) -> None:
    bot = BotFactory(is_public=False)
    assert api_staff.get(f"/api/bots/{bot.pk}/").status_code == 200


def test_update_own_bot(api: APIClient, user: Any) -> None:
    bot = BotFactory(owner=user)
    r = api.patch(f"/api/bots/{bot.pk}/", {"description": "new", "is_public": False}, format="json")
    assert r.status_code == 200, r.content
    bot.refresh_from_db()
    assert (bot.description, bot.is_public) == ("new", False)


def test_bot_game_cannot_change(api: APIClient, user: Any) -> None:
    bot = BotFactory(owner=user, game="brexit")
    r = api.patch(f"/api/bots/{bot.pk}/", {"game": "brasilis"}, format="json")
    assert r.status_code == 400
    assert "cannot be changed" in r.data["game"][0]
    bot.refresh_from_db()
    assert bot.game == "brexit"


def test_rename_onto_an_existing_name_is_a_400(api: APIClient, user: Any) -> None:
    BotFactory(owner=user, name="taken")
    bot = BotFactory(owner=user, name="free")
    r = api.patch(f"/api/bots/{bot.pk}/", {"name": "taken"}, format="json")
    assert r.status_code == 400
    assert "name" in r.data


def test_others_public_bot_cannot_be_changed(api: APIClient, other: Any) -> None:
    bot = BotFactory(owner=other, description="orig")
    assert api.patch(f"/api/bots/{bot.pk}/", {"description": "x"}, format="json").status_code == 404
    assert api.delete(f"/api/bots/{bot.pk}/").status_code == 404
    bot.refresh_from_db()
    assert (bot.description, bot.is_active) == ("orig", True)


def test_anonymous_cannot_change(anon: APIClient) -> None:
    bot = BotFactory()
    assert anon.patch(f"/api/bots/{bot.pk}/", {"name": "x"}, format="json").status_code == 401
    assert anon.delete(f"/api/bots/{bot.pk}/").status_code == 401


def test_deactivate_with_delete_keeps_the_row(api: APIClient, user: Any) -> None:
    bot = BotFactory(owner=user)
    assert api.delete(f"/api/bots/{bot.pk}/").status_code == 204
    bot.refresh_from_db()
    assert bot.is_active is False


def test_deactivate_action(api: APIClient, user: Any) -> None:
    bot = BotFactory(owner=user)
    r = api.post(f"/api/bots/{bot.pk}/deactivate/")
    assert r.status_code == 200
    assert r.data["is_active"] is False
    bot.refresh_from_db()
    assert bot.is_active is False


def _three_versions(owner: Any) -> Bot:
    """v1 and v2 ready, v3 rejected: v2 is the newest ready one."""
    bot = BotFactory(owner=owner)
    for status in ("ready", "ready", "rejected"):
        BotVersionFactory(bot=bot, status=status)
    return bot


def test_activate_a_ready_version_is_shown_to_owner_and_public(
    api: APIClient, anon: APIClient, user: Any
) -> None:
    bot = _three_versions(user)
    assert api.get(f"/api/bots/{bot.pk}/").data["active_version"] is None
    r = api.post(f"/api/bots/{bot.pk}/activate/", {"number": 1}, format="json")
    assert r.status_code == 200, r.content
    assert r.data["active_version"] == 1
    bot.refresh_from_db()
    assert bot.active_version == BotVersion.objects.get(bot=bot, number=1)
    # What ladders play is as public as the ladder: anyone who sees the bot sees it.
    assert anon.get(f"/api/bots/{bot.pk}/").data["active_version"] == 1
    listed = {b["id"]: b for b in anon.get("/api/bots/").data["results"]}
    assert listed[bot.pk]["active_version"] == 1
    # The newest ready version clears the choice: ladders follow new versions again.
    r = api.post(f"/api/bots/{bot.pk}/activate/", {"number": 2}, format="json")
    assert r.status_code == 200 and r.data["active_version"] is None


@pytest.mark.parametrize(
    ("number", "message"),
    [(3, "v3 is rejected"), (4, "has no version 4"), (0, "greater than or equal to 1")],
)
def test_activate_refuses_a_version_not_ready_or_absent(
    api: APIClient, user: Any, number: int, message: str
) -> None:
    bot = _three_versions(user)
    BotVersion.objects.filter(bot=bot, number=1).update(status="pending")
    api.post(f"/api/bots/{bot.pk}/activate/", {"number": 2}, format="json")
    r = api.post(f"/api/bots/{bot.pk}/activate/", {"number": number}, format="json")
    assert r.status_code == 400
    assert message in str(r.data)
    r = api.post(f"/api/bots/{bot.pk}/activate/", {"number": 1}, format="json")
    assert r.status_code == 400 and "v1 is pending" in str(r.data["version"])
    for bad in ({}, {"number": "x"}, {"number": 2**31}, {"number": None}):
        r = api.post(f"/api/bots/{bot.pk}/activate/", bad, format="json")
        assert r.status_code == 400 and "number" in r.data, (bad, r.content)
    bot.refresh_from_db()
    assert bot.active_version_id is None


def test_activate_others_bot_is_404_and_anonymous_401(
    api: APIClient, anon: APIClient, other: Any
) -> None:
    public = _three_versions(other)
    private = _three_versions(other)
    Bot.objects.filter(pk=private.pk).update(is_public=False)
    for bot in (public, private):
        r = api.post(f"/api/bots/{bot.pk}/activate/", {"number": 1}, format="json")
        assert r.status_code == 404
        r = anon.post(f"/api/bots/{bot.pk}/activate/", {"number": 1}, format="json")
        assert r.status_code == 401
    assert not Bot.objects.filter(active_version__isnull=False).exists()


def test_a_description_longer_than_the_cap_is_a_400_that_says_so(api: APIClient, user: Any) -> None:
    from tournaments.play.models import DESCRIPTION_MAX_LENGTH

    longest = "d" * DESCRIPTION_MAX_LENGTH
    r = api.post(
        "/api/bots/", {"game": "brexit", "name": "a", "description": longest}, format="json"
    )
    assert r.status_code == 201, r.content
    r = api.post(
        "/api/bots/", {"game": "brexit", "name": "b", "description": longest + "d"}, format="json"
    )
    assert r.status_code == 400
    assert f"no more than {DESCRIPTION_MAX_LENGTH} characters" in str(r.data["description"])
    bot = Bot.objects.get(name="a")
    r = api.patch(f"/api/bots/{bot.pk}/", {"description": "d" * 100_000}, format="json")
    assert r.status_code == 400 and "description" in r.data
    assert Bot.objects.filter(name="b").count() == 0
    bot.refresh_from_db()
    assert bot.description == longest


@pytest.mark.parametrize("name", ["a\x0fb", "line\nbreak", "rtl\u202etxt.py"])
def test_a_name_with_a_control_or_invisible_character_is_a_400(api: APIClient, name: str) -> None:
    r = api.post("/api/bots/", {"game": "brexit", "name": name}, format="json")
    assert r.status_code == 400 and "control or invisible character" in str(r.data["name"])
    assert (
        api.post("/api/bots/", {"game": "brexit", "name": "Ça va, ok"}, format="json").status_code
        == 201
    )


@pytest.mark.parametrize("description", ["a\x1b[2Jb", "bell\x07", "lone CR\r here", "n\x85el"])
def test_a_description_with_a_control_character_is_a_400(
    api: APIClient, user: Any, description: str
) -> None:
    r = api.post(
        "/api/bots/", {"game": "brexit", "name": "n", "description": description}, format="json"
    )
    assert r.status_code == 400, r.content
    assert "has a control character (U+" in str(r.data["description"])
    bot = BotFactory(owner=user, description="before")
    r = api.patch(f"/api/bots/{bot.pk}/", {"description": description}, format="json")
    assert r.status_code == 400 and "control character" in str(r.data["description"])
    bot.refresh_from_db()
    assert bot.description == "before"


def test_a_description_keeps_its_line_breaks_and_tabs(api: APIClient) -> None:
    text = "first line\r\nsecond\n\tindented, and \\x00 as text"
    r = api.post("/api/bots/", {"game": "brexit", "name": "n", "description": text}, format="json")
    assert r.status_code == 201, r.content
    assert Bot.objects.get(pk=r.data["id"]).description == text


@pytest.mark.parametrize("field", ["name", "description"])
def test_a_lone_surrogate_in_a_name_or_description_is_a_400(api: APIClient, field: str) -> None:
    body = '{"game": "brexit", "name": "n", "%s": "a\\ud800b"}' % field  # noqa: UP031
    r = api.post("/api/bots/", body, content_type="application/json")
    assert r.status_code == 400, r.content
    assert "U+D800" in str(r.data[field])


ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=40)  # surrogates included


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(name=ANY_TEXT, description=ANY_TEXT)
def test_any_name_and_description_is_stored_printable_or_refused_with_a_400(
    api: APIClient, name: str, description: str
) -> None:
    body = json.dumps({"game": "brexit", "name": name, "description": description})  # ASCII
    r = api.post("/api/bots/", body, content_type="application/json")
    assert r.status_code in (201, 400), r.content
    if r.status_code == 400:
        assert set(r.data) <= {"name", "description"}, r.data
        return
    bot = Bot.objects.get(pk=r.data["id"])
    bot.delete()  # each example on its own: the next may take the same name
    assert unprintable(bot.name) is None
    assert unstorable(bot.description.replace("\r\n", "\n")) is None
