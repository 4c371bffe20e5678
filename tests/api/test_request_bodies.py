"""Request bodies: JSON, but for an upload's file; what the schema says of them is what is read.

Each body was advertised as JSON, form and multipart at once, its file as a URL, its request
model asked for read-only fields, and a boolean left out of a form read as false (issue 23).
tests/api/test_generated_client.py drives a generated client over all of it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import QueryDict
from rest_framework.test import APIClient

from tests.api.conformance import violations
from tests.api.conftest import Enqueued
from tests.api.test_human_seats import asked, human_match, play_bots
from tests.factories import BotFactory
from tournaments.play.models import Bot, BotVersion
from tournaments.site.api import serializers as s

pytestmark = pytest.mark.django_db

DOCS = Path(__file__).resolve().parents[2] / "docs" / "api.md"
BOT = '# plays the first legal action\ndef act(observation, legal):\n    return legal["actions"][0] if legal["actions"] else {"place": []}\n'


@pytest.fixture
def schema(anon: APIClient) -> dict[str, Any]:
    r = anon.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert r.status_code == 200
    return dict(r.json())


def component(schema: dict[str, Any], ref: dict[str, str]) -> dict[str, Any]:
    return dict(schema["components"]["schemas"][ref["$ref"].rsplit("/", 1)[1]])


def bodies(schema: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """(method, path) -> its request body's content, for every operation that has one."""
    return {
        (method, path): op["requestBody"]["content"]
        for path, ops in schema["paths"].items()
        for method, op in ops.items()
        if "requestBody" in op
    }


UPLOAD = ("post", "/api/bots/{bot_id}/versions/")


def test_every_body_is_json_but_an_upload_which_is_also_multipart(schema: dict[str, Any]) -> None:
    found = bodies(schema)
    assert len(found) >= 8
    for operation, content in found.items():
        expected = {"multipart/form-data", "application/json"} if operation == UPLOAD else set()
        assert set(content) == (expected or {"application/json"}), operation


def test_the_upload_is_a_binary_file_or_source_text(schema: dict[str, Any]) -> None:
    content = bodies(schema)[UPLOAD]
    multipart = component(schema, content["multipart/form-data"]["schema"])
    assert multipart["properties"]["file"] == {
        **multipart["properties"]["file"],
        "type": "string",
        "format": "binary",
    }
    assert multipart["required"] == ["file"]
    text = component(schema, content["application/json"]["schema"])
    assert text["required"] == ["source"] and "file" not in text["properties"]
    assert text["properties"]["filename"]["default"] == "bot.py"


def test_no_request_asks_for_a_read_only_field(schema: dict[str, Any]) -> None:
    for operation, content in bodies(schema).items():
        for media in content.values():
            shape = component(schema, media["schema"])
            read_only = {k for k, v in shape["properties"].items() if v.get("readOnly")}
            assert not read_only, (operation, read_only)
            assert set(shape.get("required", [])) <= set(shape["properties"]), operation
    create = component(schema, bodies(schema)[("post", "/api/bots/")]["application/json"]["schema"])
    assert create["required"] == ["game", "name"]
    assert not {"id", "owner", "created_at"} & set(create["properties"])


def test_booleans_and_fields_left_out_show_their_defaults(schema: dict[str, Any]) -> None:
    create = component(schema, bodies(schema)[("post", "/api/bots/")]["application/json"]["schema"])
    assert create["properties"]["is_public"]["default"] is True
    assert create["properties"]["description"]["default"] == ""
    seat = schema["components"]["schemas"]["SeatRequest"]
    assert seat["properties"]["human"]["default"] is False
    # A change keeps what it leaves out: no default to show there.
    change = component(
        schema, bodies(schema)[("put", "/api/bots/{id}/")]["application/json"]["schema"]
    )
    assert "default" not in change["properties"]["is_public"]


def test_every_400_is_one_validation_error_component(schema: dict[str, Any]) -> None:
    for path, ops in schema["paths"].items():
        for method, op in ops.items():
            body = op["responses"]["400"]["content"]["application/json"]["schema"]
            assert body == {"$ref": "#/components/schemas/ValidationError"}, (method, path)


def test_every_operation_documents_a_503_with_retry_after(schema: dict[str, Any]) -> None:
    for path, ops in schema["paths"].items():
        for method, op in ops.items():
            assert "Retry-After" in op["responses"]["503"]["headers"], (method, path)


def test_a_form_body_is_a_documented_415_and_creates_nothing(api: APIClient) -> None:
    r = api.post("/api/bots/", {"game": "brexit", "name": "formed"}, format="multipart")
    assert r.status_code == 415 and "Unsupported media type" in r.json()["detail"]
    assert violations("/api/bots/", "post", r) is None
    assert not Bot.objects.exists()


def test_an_upload_as_a_form_is_a_415(api: APIClient, user: Any) -> None:
    bot = BotFactory(owner=user)
    r = api.post(
        f"/api/bots/{bot.pk}/versions/",
        "source=x%3D1",
        content_type="application/x-www-form-urlencoded",
    )
    assert r.status_code == 415
    assert violations("/api/bots/{bot_id}/versions/", "post", r) is None


def test_a_boolean_left_out_of_form_data_is_not_false() -> None:
    """A form's missing is_public read as false: the bot was created private."""
    created = s.BotCreateSerializer(data=QueryDict("game=brexit&name=formed"))
    assert created.is_valid(), created.errors
    assert created.validated_data["is_public"] is True
    # A change that leaves it out keeps it, as in JSON.
    changed = s.BotSerializer(data=QueryDict("game=brexit&name=formed"))
    assert changed.is_valid(), changed.errors
    assert "is_public" not in changed.validated_data and "is_active" not in changed.validated_data
    seat = s.SeatRequestSerializer(data=QueryDict("builtin=random"))
    assert seat.is_valid(), seat.errors
    assert "human" not in seat.validated_data


def test_a_bot_created_without_is_public_is_public(api: APIClient) -> None:
    r = api.post("/api/bots/", {"game": "brexit", "name": "plain"}, format="json")
    assert r.status_code == 201, r.content
    assert r.json()["is_public"] is True and Bot.objects.get().is_public


def test_a_put_without_is_public_keeps_a_private_bot_private(api: APIClient, user: Any) -> None:
    bot = BotFactory(owner=user, is_public=False, game="brexit")
    r = api.put(f"/api/bots/{bot.pk}/", {"game": "brexit", "name": "renamed"}, format="json")
    assert r.status_code == 200, r.content
    bot.refresh_from_db()
    assert (bot.name, bot.is_public) == ("renamed", False)


@pytest.mark.parametrize("seat", [{"builtin": "random", "human": False}, {"builtin": "random"}])
def test_human_false_is_what_leaving_it_out_says(
    api: APIClient, enqueued: Enqueued, seat: dict[str, Any]
) -> None:
    """What a generated client sends for a bot's seat: the schema's default written out."""
    r = api.post("/api/matches/", {"game": "brexit", "seats": [seat] * 3}, format="json")
    assert r.status_code == 201, r.content
    assert [shown["human"] for shown in r.json()["seats"]] == [False] * 3
    kept = s.SeatRequestSerializer(data={"human": False})
    assert kept.is_valid(), kept.errors
    assert kept.validated_data == {}  # in a fork: "this seat keeps its player"


def test_a_second_answer_is_a_documented_409(api: APIClient, enqueued: Enqueued) -> None:
    match = play_bots(human_match(api))
    [decision] = asked(api, match)
    url, body = (
        f"/api/matches/{match.pk}/actions/",
        {"action": {"place": []}, "step": decision["step"]},
    )
    assert api.post(url, body, format="json").status_code == 202
    r = api.post(url, body, format="json")
    assert r.status_code == 409
    assert violations("/api/matches/{match_id}/actions/", "post", r) is None


def test_the_walkthroughs_requests_work_as_shown(api: APIClient, enqueued: Enqueued) -> None:
    """docs/api.md's walkthrough: its JSON bodies, its multipart upload and its JSON upload."""
    walkthrough = DOCS.read_text().split("```sh", 1)[1].split("```", 1)[0]
    sign_up, bot, source, challenge = (
        json.loads(b) for b in re.findall(r"-d '([^']*)'", walkthrough)
    )
    assert APIClient().post("/api/accounts/", sign_up, format="json").status_code == 201
    r = api.post("/api/bots/", bot, format="json")
    assert r.status_code == 201 and r.json()["is_public"] is True, r.content
    url = f"/api/bots/{r.json()['id']}/versions/"
    assert re.search(r"versions/ -H \"\$AUTH\" -F file=@bot\.py\n", walkthrough)
    uploaded = SimpleUploadedFile("bot.py", BOT.encode())
    assert api.post(url, {"file": uploaded}, format="multipart").status_code == 201
    assert api.post(url, source, format="json").status_code == 201
    assert BotVersion.objects.filter(bot_id=r.json()["id"]).count() == 2
    version = BotVersion.objects.filter(bot_id=r.json()["id"]).order_by("number").first()
    assert version is not None
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.READY)  # validated
    challenge["seats"][0] = {"bot_version": version.pk}  # the docs show an example id
    r = api.post("/api/matches/", challenge, format="json")
    assert r.status_code == 201, r.content
