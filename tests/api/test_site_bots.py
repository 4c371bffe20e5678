"""My bots on the site: the list, a new bot, uploads (file or pasted source) with the API's
checks and budget, live validation status, activating a version, public or private and the
description; another user's bot is never editable, nor visible when private."""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from games.sandbox.upload import MAX_PY_BYTES
from tests.api.conftest import Enqueued, throttle_rates
from tests.factories import (
    DEFAULT_SOURCE,
    BotFactory,
    BotVersionFactory,
    RatingFactory,
    SeatFactory,
    UserFactory,
)
from tournaments.competition import selectors as competition_selectors
from tournaments.competition.models import Ladder
from tournaments.play import services
from tournaments.play.models import Bot, BotVersion, Fault

pytestmark = pytest.mark.django_db

SOURCE = DEFAULT_SOURCE.decode()


def _zipped(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return buf.getvalue()


def _logged_in(user: Any) -> Client:
    c = Client()
    c.force_login(user)
    return c


def _text(r: Any) -> str:
    return str(r.content.decode()).replace("&#x27;", "'").replace("&quot;", '"')


@pytest.fixture
def owner() -> Any:
    return UserFactory()


@pytest.fixture
def site(owner: Any) -> Client:
    return _logged_in(owner)


def test_my_bots_lists_game_listing_active_version_ratings_and_errors(
    owner: Any, site: Client
) -> None:
    bot = BotFactory(owner=owner, name="leaver", is_public=False)
    v1 = BotVersionFactory(bot=bot)
    BotVersionFactory(bot=bot, status=BotVersion.Status.PENDING)
    ladder = Ladder.objects.create(name="Brexit for three", game="brexit", seats=3)
    RatingFactory(ladder=ladder, player=f"v:{v1.pk}", bot_version=v1, rating=1612.0)
    seat = SeatFactory(bot_version=v1, verdicts={"ok": 30, "timeout": 2, "crash": 1})
    # Its last errors are its faults' rows (one a non-ok verdict) in its newest matches.
    for step, verdict in ((4, "timeout"), (9, "timeout"), (12, "crash")):
        Fault.objects.create(
            bot=bot, bot_version=v1, match=seat.match, seat=seat.number, step=step,
            asked_step=step - 1, verdict=verdict,
        )  # fmt: skip
    BotFactory(name="someone-elses")  # not listed
    r = site.get("/bots/mine/")
    assert r.status_code == 200
    html = _text(r)
    row = re.search(
        rf'<tr>\s*<td[^>]*><div><a href="/bots/{bot.pk}/manage/">leaver.*?</tr>', html, re.S
    )
    assert row, html
    cells = row.group(0)
    for needle in (
        "Brexit",
        "private",
        "v1",
        "validating",
        "Brexit for three",
        "1612",
        f'href="/bots/{bot.pk}/errors/">3<',
    ):
        assert needle in cells, needle
    assert "someone-elses" not in html


def test_a_new_bot_from_the_form(owner: Any, site: Client) -> None:
    assert site.get("/bots/new/").status_code == 200
    r = site.post(
        "/bots/new/",
        {"game": "brasilis", "name": "lula", "description": "plays", "is_public": "on"},
    )
    bot = Bot.objects.get(owner=owner, name="lula")
    assert r.status_code == 302 and r["Location"] == f"/bots/{bot.pk}/manage/"
    assert (bot.game, bot.description, bot.is_public) == ("brasilis", "plays", True)
    # An unticked box is private (the API's omitted boolean is public: not here).
    site.post("/bots/new/", {"game": "brexit", "name": "quiet"})
    assert Bot.objects.get(name="quiet").is_public is False


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"game": "chess"}, '"chess" is not a valid choice'),
        ({"name": ""}, "This field may not be blank"),
        ({"name": "x" * 61}, "no more than 60 characters"),
        ({"name": "bad\u200bname"}, "control or invisible character"),
        ({"name": "taken"}, "you already have a bot called 'taken'"),
        ({"description": "a\x1b[2Jb"}, "the description has a control character"),
    ],
)
def test_bad_new_bots_are_a_400_with_the_api_message_and_keep_the_form(
    owner: Any, site: Client, body: dict[str, str], message: str
) -> None:
    BotFactory(owner=owner, name="taken")
    data = {"game": "brexit", "name": "fresh", "description": "kept text", **body}
    r = site.post("/bots/new/", data)
    assert r.status_code == 400
    html = _text(r)
    assert message in html, html
    assert "kept text" in html or "description" in body
    assert Bot.objects.filter(owner=owner).count() == 1


def test_pasted_source_becomes_a_version_and_its_validation_is_queued(
    owner: Any, site: Client, enqueued: Enqueued, django_capture_on_commit_callbacks: Any
) -> None:
    bot = BotFactory(owner=owner)
    with django_capture_on_commit_callbacks(execute=True):
        r = site.post(f"/bots/{bot.pk}/upload/", {"source": SOURCE.replace("\n", "\r\n")})
    assert r.status_code == 302 and r["Location"] == f"/bots/{bot.pk}/manage/#versions"
    version = BotVersion.objects.get(bot=bot)
    assert (version.filename, bytes(version.upload)) == ("bot.py", DEFAULT_SOURCE)  # LF kept
    assert enqueued.validate_bot_version == [version.pk]
    page = _text(site.get(f"/bots/{bot.pk}/manage/"))
    assert 'data-status="pending"' in page and "v1 is uploaded" in page
    # The smoke match is linked from the start; the page polls the API's list of versions.
    smoke = version.smoke_matches.get()
    assert f'href="/matches/{smoke.pk}/"' in page
    assert f'data-versions-url="/api/bots/{bot.pk}/versions/"' in page
    assert "site/editor.js" in page and "site/my_bots.js" in page


def test_the_status_json_the_page_polls_answers_the_owner_with_the_error(
    owner: Any, site: Client
) -> None:
    bot = BotFactory(owner=owner, is_public=False)
    BotVersionFactory(bot=bot, status=BotVersion.Status.REJECTED, validation_error="Traceback: x")
    body = site.get(f"/api/bots/{bot.pk}/versions/").json()
    assert body["results"][0]["status"] == "rejected"
    assert body["results"][0]["validation_error"] == "Traceback: x"
    assert _logged_in(UserFactory()).get(f"/api/bots/{bot.pk}/versions/").status_code == 404


def test_a_file_becomes_a_version(owner: Any, site: Client, enqueued: Enqueued) -> None:
    bot = BotFactory(owner=owner)
    data = _zipped({"bot.py": DEFAULT_SOURCE})
    r = site.post(f"/bots/{bot.pk}/upload/", {"file": SimpleUploadedFile("mine.zip", data)})
    assert r.status_code == 302
    assert BotVersion.objects.get(bot=bot).filename == "mine.zip"


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"source": "#" * (MAX_PY_BYTES + 2)}, "source", "no more than"),
        ({"source": "x = 1\x00\n"}, "source", "Null characters are not allowed"),
        ({"file": ("bot.txt", b"x = 1\n")}, "file", ".py"),
        ({"file": ("bot.zip", _zipped({"bot.py": b"", "n" * 304 + ".py": b""}))}, "file", "255"),
        ({}, "file", "no 'file' and no 'source' received"),
    ],
)
def test_bad_uploads_are_a_400_with_the_api_message_and_keep_the_source(
    owner: Any,
    site: Client,
    enqueued: Enqueued,
    body: dict[str, Any],
    field: str,
    message: str,
) -> None:
    bot: Any = BotFactory(owner=owner)
    data = dict(body)
    if "file" in data:
        name, content = data["file"]
        data["file"] = SimpleUploadedFile(name, content)
    r = site.post(f"/bots/{bot.pk}/upload/", data)
    assert r.status_code == 400, r.content
    html = _text(r)
    api = _api_errors(owner, bot, body)
    assert api, "the API refuses it too"
    for text in api:
        assert text in html, (text, html)
    assert message in html
    if body.get("source"):
        assert body["source"].rstrip("\n") in html  # what was pasted is still in the editor
    assert not BotVersion.objects.filter(bot=bot).exists()
    assert enqueued.validate_bot_version == []


def _api_errors(owner: Any, bot: Bot, body: dict[str, Any]) -> list[str]:
    """The messages the API answers the same upload with: the site shows these."""
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(owner)
    url = f"/api/bots/{bot.pk}/versions/"
    if "file" in body:
        name, content = body["file"]
        r = api.post(url, {"file": SimpleUploadedFile(name, content)}, format="multipart")
    elif body:
        r = api.post(url, body, format="json")
    else:
        r = api.post(url, {}, format="multipart")
    assert r.status_code == 400, r.content
    return [str(m) for messages in r.json().values() for m in messages]


def test_an_upload_too_large_is_a_413_before_it_is_read(owner: Any, site: Client) -> None:
    bot = BotFactory(owner=owner)
    big = SimpleUploadedFile("bot.zip", b"\0" * (5 * 1024 * 1024))
    r = site.post(f"/bots/{bot.pk}/upload/", {"file": big})
    assert r.status_code == 413
    assert "may be at most" in _text(r)


def test_a_paste_too_large_is_a_413_saying_the_limit_beside_the_editor(
    owner: Any, site: Client
) -> None:
    from urllib.parse import urlencode

    bot = BotFactory(owner=owner)
    body = urlencode({"source": "#" * (3 * 1024 * 1024)})
    r = site.post(f"/bots/{bot.pk}/upload/", body, content_type="application/x-www-form-urlencoded")
    assert r.status_code == 413
    editor = _text(r).split('id="source"')[1].split('type="file"')[0]
    assert (
        f"the request body is {len(body)} bytes; pasted source may be at most {MAX_PY_BYTES}"
        " bytes (as a .py upload)"
    ) in editor


def test_a_refused_body_is_read_to_its_end_so_the_page_arrives_whole(owner: Any) -> None:
    from django.test import RequestFactory

    from tournaments.site.pages.my_bots import bot_upload

    bot = BotFactory(owner=owner)
    request = RequestFactory().post(
        f"/bots/{bot.pk}/upload/",
        "source=" + "#" * (3 * 1024 * 1024),
        content_type="application/x-www-form-urlencoded",
    )
    request.user = owner
    assert bot_upload(request, bot_id=bot.pk).status_code == 413
    assert request.read(1) == b""  # nothing left for the server to reset the connection over


def test_site_uploads_share_the_api_budget(owner: Any, site: Client, enqueued: Enqueued) -> None:
    from rest_framework.test import APIClient

    bot = BotFactory(owner=owner)
    api = APIClient()
    api.force_authenticate(owner)
    with throttle_rates(uploads="2/hour"):
        assert site.post(f"/bots/{bot.pk}/upload/", {"source": SOURCE}).status_code == 302
        bad = site.post(f"/bots/{bot.pk}/upload/", {"source": "\x00"})
        assert bad.status_code == 400  # refused: costs nothing
        url = f"/api/bots/{bot.pk}/versions/"
        assert api.post(url, {"source": SOURCE + "#2\n"}, format="json").status_code == 201
        r = site.post(f"/bots/{bot.pk}/upload/", {"source": SOURCE + "#3\n"})
    assert r.status_code == 429 and int(r["Retry-After"]) > 0
    assert BotVersion.objects.filter(bot=bot).count() == 2


def test_activating_a_version_has_ladders_play_it(owner: Any, site: Client) -> None:
    bot = BotFactory(owner=owner)
    v1 = BotVersionFactory(bot=bot)
    v2 = BotVersionFactory(bot=bot)
    pending = BotVersionFactory(bot=bot, status=BotVersion.Status.PENDING)
    ladder = Ladder.objects.create(name="l", game="brexit", seats=3)
    assert f"v:{v2.pk}" in competition_selectors.members(ladder)
    r = site.post(f"/bots/{bot.pk}/activate/", {"number": "1"})
    assert r.status_code == 302
    bot.refresh_from_db()
    assert bot.active_version_id == v1.pk
    assert f"v:{v1.pk}" in competition_selectors.members(
        ladder
    ) and f"v:{v2.pk}" not in competition_selectors.members(ladder)
    assert "Ladders now play v1" in _text(site.get(f"/bots/{bot.pk}/manage/"))
    mine = _text(site.get("/bots/mine/"))
    assert 'v1 <span class="muted">(chosen)</span>' in mine
    # Not ready: refused with the reason; the choice stands.
    r = site.post(f"/bots/{bot.pk}/activate/", {"number": str(pending.number)})
    assert r.status_code == 400 and "only a ready version can be activated" in _text(r)
    for bad in ("99", "x", "-1", ""):
        assert site.post(f"/bots/{bot.pk}/activate/", {"number": bad}).status_code == 400, bad
    bot.refresh_from_db()
    assert bot.active_version_id == v1.pk
    # The newest ready again: ladders follow each new ready version once more.
    site.post(f"/bots/{bot.pk}/activate/", {"number": "2"})
    bot.refresh_from_db()
    assert bot.active_version_id is None
    v4 = BotVersionFactory(bot=bot)
    assert f"v:{v4.pk}" in competition_selectors.members(ladder)


def test_settings_make_a_bot_private_and_change_its_description(owner: Any, site: Client) -> None:
    bot = BotFactory(owner=owner, is_public=True, description="old")
    r = site.post(f"/bots/{bot.pk}/manage/", {"description": "new words"})
    assert r.status_code == 302
    bot.refresh_from_db()
    assert (bot.is_public, bot.description) == (False, "new words")
    assert "is private" in _text(site.get(f"/bots/{bot.pk}/manage/"))
    site.post(f"/bots/{bot.pk}/manage/", {"description": "", "is_public": "on"})
    bot.refresh_from_db()
    assert (bot.is_public, bot.description) == (True, "")
    bad = site.post(f"/bots/{bot.pk}/manage/", {"description": "x" * 2001, "is_public": "on"})
    assert bad.status_code == 400 and "no more than 2000 characters" in _text(bad)
    assert "x" * 2001 in _text(bad)  # kept in the form
    bot.refresh_from_db()
    assert bot.description == ""


@pytest.mark.parametrize("public", [True, False])
def test_another_users_bot_is_not_editable(owner: Any, public: bool, enqueued: Enqueued) -> None:
    bot: Any = BotFactory(owner=owner, is_public=public, description="theirs")
    version = BotVersionFactory(bot=bot)
    other = _logged_in(UserFactory())
    staff = _logged_in(UserFactory(is_staff=True))
    for c in (other, staff):
        assert c.get(f"/bots/{bot.pk}/manage/").status_code == 404
        assert c.post(f"/bots/{bot.pk}/manage/", {"description": "mine now"}).status_code == 404
        assert c.post(f"/bots/{bot.pk}/upload/", {"source": SOURCE + "#x\n"}).status_code == 404
        assert c.post(f"/bots/{bot.pk}/activate/", {"number": "1"}).status_code == 404
        assert bot.name not in _text(c.get("/bots/mine/"))
    anon = Client()
    assert anon.get(f"/bots/{bot.pk}/manage/").status_code == 302  # to the login
    assert anon.post(f"/bots/{bot.pk}/upload/", {"source": SOURCE}).status_code == 302
    bot.refresh_from_db()
    assert (bot.description, bot.is_public) == ("theirs", public)
    assert list(BotVersion.objects.filter(bot=bot)) == [version]
    # Its public page: seen by others only while public.
    assert other.get(f"/bots/{bot.pk}/").status_code == (200 if public else 404)


def test_a_deactivated_bot_refuses_uploads_with_the_reason(owner: Any, site: Client) -> None:
    bot = BotFactory(owner=owner, is_active=False)
    r = site.post(f"/bots/{bot.pk}/upload/", {"source": SOURCE})
    assert r.status_code == 400
    assert "this bot is deactivated" in _text(r)


def test_pages_refuse_other_methods(owner: Any, site: Client) -> None:
    bot = BotFactory(owner=owner)
    assert site.get(f"/bots/{bot.pk}/upload/")["Location"] == f"/bots/{bot.pk}/manage/#upload"
    assert site.delete(f"/bots/{bot.pk}/activate/").status_code == 405
    assert site.put("/bots/mine/").status_code == 405


def test_a_version_of_another_bot_cannot_be_activated(owner: Any) -> None:
    bot: Any = BotFactory(owner=owner)
    BotVersionFactory(bot=bot)
    theirs: Any = BotFactory(owner=owner)
    BotVersionFactory(bot=theirs)
    BotVersionFactory(bot=theirs)
    with pytest.raises(services.Invalid, match="has no version 2"):
        services.activate_version(bot=bot, number=2)
    bot.refresh_from_db()
    assert bot.active_version_id is None


def test_the_editor_starts_from_a_starter_then_from_the_newest_py(owner: Any, site: Client) -> None:
    bot = BotFactory(owner=owner)
    assert "def act(observation, legal):" in _text(site.get(f"/bots/{bot.pk}/manage/"))
    BotVersionFactory(bot=bot, upload=b"# my own bot\ndef act(o, legal):\n    return None\n")
    page = _text(site.get(f"/bots/{bot.pk}/manage/"))
    assert "# my own bot\ndef act(o, legal):" in page
    BotVersionFactory(bot=bot, filename="bot.zip", upload=_zipped({"bot.py": b"# zipped\n"}))
    page = _text(site.get(f"/bots/{bot.pk}/manage/"))
    assert "# my own bot" not in page and "# zipped" not in page


def test_the_bot_page_links_its_owner_to_the_manage_page(owner: Any, site: Client) -> None:
    bot = BotFactory(owner=owner)
    link = f'href="/bots/{bot.pk}/manage/"'
    assert link in _text(site.get(f"/bots/{bot.pk}/"))
    assert link not in _text(_logged_in(UserFactory()).get(f"/bots/{bot.pk}/"))
