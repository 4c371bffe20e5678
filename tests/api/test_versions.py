"""/api/bots/{id}/versions/: uploads (JSON or multipart), their 400s, numbering, and owner-only source."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from games.sandbox import packages
from games.sandbox.upload import MAX_PY_BYTES, MAX_ZIP_BYTES, unprintable
from tests.api.conftest import Enqueued, throttle_rates
from tests.factories import BotFactory, BotVersionFactory
from tournaments.play.models import BotVersion

pytestmark = pytest.mark.django_db

SOURCE = "def act(observation):\n    return None  # £ non-ASCII on purpose\n"


def zipped(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return buf.getvalue()


def test_json_upload_stores_bytes_and_queues_validation(
    api: APIClient, user: Any, enqueued: Enqueued, django_capture_on_commit_callbacks: Any
) -> None:
    bot = BotFactory(owner=user)
    with django_capture_on_commit_callbacks(execute=True):
        r = api.post(
            f"/api/bots/{bot.pk}/versions/", {"filename": "bot.py", "source": SOURCE}, format="json"
        )
    assert r.status_code == 201, r.content
    v = BotVersion.objects.get(pk=r.data["id"])
    data = SOURCE.encode()
    assert bytes(v.upload) == data
    assert (v.number, v.size, v.sha256, v.status) == (
        1,
        len(data),
        hashlib.sha256(data).hexdigest(),
        "pending",
    )
    assert enqueued.validate_bot_version == [v.pk]


def test_versions_are_numbered_per_bot(api: APIClient, user: Any, enqueued: Enqueued) -> None:
    bot = BotFactory(owner=user)
    BotVersionFactory(bot=bot)
    BotVersionFactory()  # another bot's versions do not count
    r = api.post(f"/api/bots/{bot.pk}/versions/", {"source": SOURCE}, format="json")
    assert r.status_code == 201
    assert r.data["number"] == 2
    assert r.data["filename"] == "bot.py"


def test_multipart_py_upload(api: APIClient, user: Any, enqueued: Enqueued) -> None:
    bot = BotFactory(owner=user)
    f = SimpleUploadedFile("bot.py", SOURCE.encode(), content_type="text/x-python")
    r = api.post(f"/api/bots/{bot.pk}/versions/", {"file": f}, format="multipart")
    assert r.status_code == 201, r.content
    assert bytes(BotVersion.objects.get(pk=r.data["id"]).upload) == SOURCE.encode()


def test_multipart_zip_upload(api: APIClient, user: Any, enqueued: Enqueued) -> None:
    bot = BotFactory(owner=user)
    data = zipped({"bot.py": SOURCE.encode(), "lib/helper.py": b"X = 1\n"})
    f = SimpleUploadedFile("mybot.zip", data, content_type="application/zip")
    r = api.post(f"/api/bots/{bot.pk}/versions/", {"file": f}, format="multipart")
    assert r.status_code == 201, r.content
    v = BotVersion.objects.get(pk=r.data["id"])
    assert (v.filename, bytes(v.upload)) == ("mybot.zip", data)


@pytest.mark.parametrize(
    ("filename", "data", "needle"),
    [
        ("bot.py", b"x = 1\n" + b"#" * MAX_PY_BYTES, "at most"),
        ("bot.py", b"x = '\xff\xfe'\n", "not UTF-8"),
        ("bot.zip", b"this is not a zip at all", "not a valid zip"),
        ("bot.zip", zipped({"other.py": b"x=1\n"}), "no bot.py"),
        ("bot.exe", b"MZ", ".py file or a .zip"),
        ("bot.zip", zipped({"bot.py": b"", "lib": b"", "lib/a.py": b""}), "both a file and"),
        ("bot.zip", zipped({"bot.py": b"", "n" * 304 + ".py": b""}), "longer than 255 bytes"),
    ],
    ids=[
        "too-large",
        "not-utf8",
        "not-a-zip",
        "zip-without-bot",
        "wrong-extension",
        "file-and-folder",
        "long-name",
    ],
)
def test_bad_files_are_a_400_on_file(
    api: APIClient, user: Any, enqueued: Enqueued, filename: str, data: bytes, needle: str
) -> None:
    bot = BotFactory(owner=user)
    f = SimpleUploadedFile(filename, data)
    r = api.post(f"/api/bots/{bot.pk}/versions/", {"file": f}, format="multipart")
    assert r.status_code == 400, r.content
    assert needle in r.data["file"][0]
    assert not BotVersion.objects.filter(bot=bot).exists()
    assert enqueued.validate_bot_version == []


@pytest.mark.parametrize(
    "name", ["lib/fast.cpython-311-x86_64-linux-gnu.so", "speedups.pyd", "x.dylib"]
)
def test_a_zip_bundling_compiled_extensions_is_refused_at_upload_saying_what_is_offered(
    api: APIClient, user: Any, enqueued: Enqueued, name: str
) -> None:
    bot = BotFactory(owner=user)
    data = zipped({"bot.py": SOURCE.encode(), name: b"\x7fELF\x02\x01\x01"})
    f = SimpleUploadedFile("bot.zip", data, content_type="application/zip")
    r = api.post(f"/api/bots/{bot.pk}/versions/", {"file": f}, format="multipart")
    assert r.status_code == 400, r.content
    assert r.data["file"][0] == (
        f"{name} is a compiled extension; uploads may hold Python source and data only. Bots"
        f' may import {packages.described()} (docs/bots.md, "What a bot may import")'
    )
    assert "numpy" in r.data["file"][0]
    assert not BotVersion.objects.filter(bot=bot).exists()
    assert enqueued.validate_bot_version == []


def test_huge_multipart_file_is_refused_unread(api: APIClient, user: Any) -> None:
    bot = BotFactory(owner=user)
    f = SimpleUploadedFile("bot.zip", b"\0" * (5 * 1024 * 1024))
    r = api.post(f"/api/bots/{bot.pk}/versions/", {"file": f}, format="multipart")
    assert r.status_code == 413
    assert "at most" in r.json()["detail"]


def test_a_file_over_its_limit_within_the_request_limit_is_a_400_on_file(
    api: APIClient, user: Any
) -> None:
    bot = BotFactory(owner=user)
    f = SimpleUploadedFile("bot.zip", b"\0" * (MAX_ZIP_BYTES + 1))
    r = api.post(f"/api/bots/{bot.pk}/versions/", {"file": f}, format="multipart")
    assert r.status_code == 400
    assert "at most" in r.data["file"][0]


def test_json_source_too_large_is_a_400(api: APIClient, user: Any) -> None:
    bot = BotFactory(owner=user)
    r = api.post(
        f"/api/bots/{bot.pk}/versions/", {"source": "#" * (MAX_PY_BYTES + 10)}, format="json"
    )
    assert r.status_code == 400
    # The error is on the field the client sent (source), not on the multipart one.
    assert list(r.data) == ["source"]
    assert "no more than" in r.data["source"][0]


def test_json_source_with_a_lone_surrogate_is_a_400(api: APIClient, user: Any) -> None:
    bot = BotFactory(owner=user)
    body = '{"filename": "bot.py", "source": "x = \'\\ud800\'"}'
    r = api.post(f"/api/bots/{bot.pk}/versions/", body, content_type="application/json")
    assert r.status_code == 400
    assert "source" in r.data


def test_neither_file_nor_source_is_a_400(api: APIClient, user: Any) -> None:
    bot = BotFactory(owner=user)
    r = api.post(f"/api/bots/{bot.pk}/versions/", {"filename": "bot.py"}, format="json")
    assert r.status_code == 400
    assert "file" in r.data


def test_upload_to_an_inactive_bot_is_404(api: APIClient, user: Any) -> None:
    bot = BotFactory(owner=user, is_active=False)
    r = api.post(f"/api/bots/{bot.pk}/versions/", {"source": SOURCE}, format="json")
    assert r.status_code == 404
    assert not BotVersion.objects.exists()


def test_upload_to_another_users_bot_is_404(api: APIClient, other: Any) -> None:
    bot = BotFactory(owner=other)
    r = api.post(f"/api/bots/{bot.pk}/versions/", {"source": SOURCE}, format="json")
    assert r.status_code == 404
    assert not BotVersion.objects.exists()


def test_anonymous_upload_is_401(anon: APIClient) -> None:
    bot = BotFactory()
    assert (
        anon.post(f"/api/bots/{bot.pk}/versions/", {"source": SOURCE}, format="json").status_code
        == 401
    )


def test_list_versions_of_a_public_bot_without_source(api: APIClient, other: Any) -> None:
    v1 = BotVersionFactory(bot__owner=other)
    v2 = BotVersionFactory(bot=v1.bot)
    r = api.get(f"/api/bots/{v1.bot_id}/versions/")
    assert r.status_code == 200
    assert [v["number"] for v in r.data["results"]] == [v2.number, v1.number]
    assert all("upload" not in v and "source" not in v for v in r.data["results"])
    assert api.get(f"/api/bots/{v1.bot_id}/versions/1/").data["sha256"] == v1.sha256


def test_versions_of_another_users_private_bot_are_404(api: APIClient, other: Any) -> None:
    v = BotVersionFactory(bot__owner=other, bot__is_public=False)
    assert api.get(f"/api/bots/{v.bot_id}/versions/").status_code == 404
    assert api.get(f"/api/bots/{v.bot_id}/versions/1/").status_code == 404
    assert api.get(f"/api/bots/{v.bot_id}/versions/1/source/").status_code == 404


def test_source_is_for_the_owner_and_staff_only(
    api: APIClient, api_other: APIClient, api_staff: APIClient, anon: APIClient, user: Any
) -> None:
    v = BotVersionFactory(bot__owner=user, upload=b"print('secret')\n")
    url = f"/api/bots/{v.bot_id}/versions/{v.number}/source/"
    r = api.get(url)
    assert r.status_code == 200
    assert r.content == b"print('secret')\n"
    assert api_staff.get(url).content == b"print('secret')\n"
    assert api_other.get(url).status_code == 404
    assert anon.get(url).status_code == 404


def test_uploads_are_rate_limited_with_retry_after(
    api: APIClient, user: Any, enqueued: Enqueued
) -> None:
    bot = BotFactory(owner=user)
    url = f"/api/bots/{bot.pk}/versions/"
    with throttle_rates(uploads="2/hour"):
        assert api.post(url, {"source": SOURCE}, format="json").status_code == 201
        assert api.post(url, {"source": SOURCE + "#2\n"}, format="json").status_code == 201
        assert api.get(url).status_code == 200  # reads do not count
        r = api.post(url, {"source": SOURCE + "#3\n"}, format="json")
    assert r.status_code == 429
    assert int(r["Retry-After"]) > 0
    assert BotVersion.objects.filter(bot=bot).count() == 2


@pytest.mark.parametrize(
    "filename",
    ["a\r\nSet-Cookie: x=1.py", "bot\n.py", "bot\x07.py", "\u202eyp.exe.py", "bot\u2028.py"],
    ids=["crlf", "lf", "bell", "rtl-override", "line-separator"],
)
def test_control_characters_in_a_filename_are_a_400(
    api: APIClient, user: Any, enqueued: Enqueued, filename: str
) -> None:
    bot = BotFactory(owner=user)
    r = api.post(
        f"/api/bots/{bot.pk}/versions/", {"filename": filename, "source": SOURCE}, format="json"
    )
    assert r.status_code == 400, r.content
    assert "control or invisible character" in r.data["filename"][0]
    assert not BotVersion.objects.filter(bot=bot).exists()


@pytest.mark.parametrize(
    ("filename", "header"),
    [
        ('a"b;c.py', 'attachment; filename="a\\"b;c.py"'),
        ("bôt-élu.py", "attachment; filename*=utf-8''b%C3%B4t-%C3%A9lu.py"),
        ("bot.py", 'attachment; filename="bot.py"'),
    ],
    ids=["quote-and-semicolon", "non-ascii", "plain"],
)
def test_source_download_names_the_file_safely(
    api: APIClient, user: Any, enqueued: Enqueued, filename: str, header: str
) -> None:
    bot = BotFactory(owner=user)
    r = api.post(
        f"/api/bots/{bot.pk}/versions/", {"filename": filename, "source": SOURCE}, format="json"
    )
    assert r.status_code == 201, r.content
    got = api.get(f"/api/bots/{bot.pk}/versions/{r.data['number']}/source/")
    assert got.status_code == 200
    assert got["Content-Disposition"] == header
    assert got.content == SOURCE.encode()


def test_a_stored_filename_with_a_newline_still_downloads(api: APIClient, user: Any) -> None:
    # Versions stored before filenames were checked at upload.
    v = BotVersionFactory(bot__owner=user, filename="evil\r\nX-Injected: 1.py", upload=b"x = 1\n")
    r = api.get(f"/api/bots/{v.bot_id}/versions/{v.number}/source/")
    assert r.status_code == 200
    assert "\n" not in r["Content-Disposition"] and "X-Injected" not in r
    assert r["Content-Disposition"] == "attachment; filename*=utf-8''evil%0D%0AX-Injected%3A%201.py"


def test_an_upload_too_large_is_refused_before_its_body_is_read(api: APIClient, user: Any) -> None:
    bot = BotFactory(owner=user)
    # The body is 1 KB but claims 50 MB: reading past the 1 KB fails the test client's stream
    # (FakePayload), so only a refusal on Content-Length alone answers.
    r = api.generic(
        "POST",
        f"/api/bots/{bot.pk}/versions/",
        "x" * 1024,
        content_type="multipart/form-data; boundary=BoUnDaRy",
        CONTENT_LENGTH=str(50 << 20),
    )
    assert r.status_code == 413, r.content
    assert r["Content-Type"] == "application/json"
    assert "52428800 bytes" in r.json()["detail"] and "at most" in r.json()["detail"]
    assert not BotVersion.objects.exists()


@pytest.mark.parametrize(
    "size", [3 << 20, (2 << 20) + (128 << 10)], ids=["over-django-limit", "over-zip-limit"]
)
def test_an_oversized_json_upload_is_a_json_413(api: APIClient, user: Any, size: int) -> None:
    bot = BotFactory(owner=user)
    url = f"/api/bots/{bot.pk}/versions/"
    r = api.post(url, {"source": "#" * size}, format="json")
    assert r.status_code == 413, r.content[:300]
    assert r["Content-Type"] == "application/json"
    assert "at most" in r.json()["detail"]


def test_any_api_body_over_the_limit_is_a_json_413(api: APIClient) -> None:
    r = api.post("/api/matches/", {"game": "brexit", "pad": "#" * (3 << 20)}, format="json")
    assert r.status_code == 413, r.content[:300]
    assert r["Content-Type"] == "application/json"
    assert "at most" in r.json()["detail"]


def test_too_many_form_fields_is_a_json_400(api: APIClient, user: Any) -> None:
    # Multipart is the one form-shaped body the API reads (an upload): elsewhere it is a 415.
    bot = BotFactory(owner=user)
    fields = {f"f{i}": "1" for i in range(1200)}
    r = api.post(f"/api/bots/{bot.pk}/versions/", fields, format="multipart")
    assert r.status_code == 400, r.content[:300]
    assert r["Content-Type"] == "application/json"
    assert "fields" in r.json()["detail"]


def test_too_many_files_is_a_json_400(api: APIClient, user: Any) -> None:
    bot = BotFactory(owner=user)
    files = {f"f{i}": SimpleUploadedFile(f"{i}.py", b"x") for i in range(110)}
    r = api.post(f"/api/bots/{bot.pk}/versions/", files, format="multipart")
    assert r.status_code == 400, r.content[:300]
    assert r["Content-Type"] == "application/json"
    assert "too many files" in r.json()["detail"]


def test_an_identical_reupload_answers_with_the_version_it_repeats(
    api: APIClient, user: Any, enqueued: Enqueued, django_capture_on_commit_callbacks: Any
) -> None:
    bot = BotFactory(owner=user)
    url = f"/api/bots/{bot.pk}/versions/"
    with django_capture_on_commit_callbacks(execute=True):
        first = api.post(url, {"filename": "bot.py", "source": SOURCE}, format="json")
        again = api.post(url, {"filename": "bot.py", "source": SOURCE}, format="json")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.data["id"] == first.data["id"] and again.data["number"] == 1
    assert BotVersion.objects.filter(bot=bot).count() == 1
    assert enqueued.validate_bot_version == [first.data["id"]]  # validated once


def test_going_back_to_older_bytes_makes_a_new_newest_version(
    api: APIClient, user: Any, enqueued: Enqueued
) -> None:
    # Ladders play a bot's newest ready version: a rollback must become the newest.
    bot = BotFactory(owner=user)
    url = f"/api/bots/{bot.pk}/versions/"
    numbers = [
        api.post(url, {"source": source}, format="json").data["number"]
        for source in (SOURCE, SOURCE + "#2\n", SOURCE)
    ]
    assert numbers == [1, 2, 3]


def test_a_rejected_version_uploaded_again_is_validated_again(
    api: APIClient, user: Any, enqueued: Enqueued
) -> None:
    bot = BotFactory(owner=user)
    url = f"/api/bots/{bot.pk}/versions/"
    first = api.post(url, {"source": SOURCE}, format="json")
    BotVersion.objects.filter(pk=first.data["id"]).update(status=BotVersion.Status.REJECTED)
    again = api.post(url, {"source": SOURCE}, format="json")
    assert again.status_code == 201 and again.data["number"] == 2


def test_a_filename_that_is_not_utf8_is_a_400_that_says_what_was_missing(
    api: APIClient, user: Any
) -> None:
    """Django drops a part whose headers are not UTF-8: the answer must not say 'not both'."""
    bot = BotFactory(owner=user)
    body = (
        b'--BoUnDaRy\r\nContent-Disposition: form-data; name="file"; filename="\xff\xfe.py"\r\n'
        b"Content-Type: text/x-python\r\n\r\n" + SOURCE.encode() + b"\r\n--BoUnDaRy--\r\n"
    )
    r = api.generic(
        "POST",
        f"/api/bots/{bot.pk}/versions/",
        body,  # type: ignore[arg-type]  # bytes on purpose: a str would be sent as UTF-8
        content_type="multipart/form-data; boundary=BoUnDaRy",
    )
    assert r.status_code == 400, r.content
    [message] = r.json()["file"]
    assert "not both" not in message
    assert "no 'file' and no 'source' received" in message and "UTF-8" in message
    assert not BotVersion.objects.exists()


def test_a_file_and_a_source_together_is_a_400_saying_not_both(api: APIClient, user: Any) -> None:
    bot = BotFactory(owner=user)
    upload = SimpleUploadedFile("bot.py", SOURCE.encode())
    r = api.post(
        f"/api/bots/{bot.pk}/versions/", {"file": upload, "source": SOURCE}, format="multipart"
    )
    assert r.status_code == 400
    assert "not both" in r.json()["file"][0]


@pytest.mark.parametrize("url", ["/api/matches/", "/api/accounts/token/"])
def test_a_chunked_body_is_a_json_411_not_a_missing_field(api: APIClient, url: str) -> None:
    """Without a Content-Length WSGI reads no body: say so instead of 'This field is required'."""
    body = '{"game": "brexit", "seats": [{"builtin": "greedy"}, {"builtin": "random"}]}'
    chunked = f"{len(body):x}\r\n{body}\r\n0\r\n\r\n"
    r = api.generic(
        "POST",
        url,
        chunked,
        content_type="application/json",
        CONTENT_LENGTH="",
        HTTP_TRANSFER_ENCODING="chunked",
    )
    assert r.status_code == 411, r.content
    assert r["Content-Type"] == "application/json"
    assert "Content-Length" in r.json()["detail"]


def named(name: str, data: bytes) -> io.BytesIO:
    """A file part sent under ``name`` as it is (an UploadedFile would cut it to 255 characters
    before the test client even sends it)."""
    part = io.BytesIO(data)
    part.name = name
    return part


def test_a_multipart_file_name_over_255_characters_is_a_400_that_says_so(
    api: APIClient, user: Any, enqueued: Enqueued
) -> None:
    # Django cut it to 255 characters and the upload was accepted under a name nobody chose.
    bot = BotFactory(owner=user)
    url = f"/api/bots/{bot.pk}/versions/"
    r = api.post(url, {"file": named("b" * 300 + ".py", SOURCE.encode())}, format="multipart")
    assert r.status_code == 400, r.content
    assert r.data["filename"] == ["the file name is 303 characters long; at most 255 are allowed"]
    assert not BotVersion.objects.filter(bot=bot).exists()
    longest = "b" * 252 + ".py"
    r = api.post(url, {"file": named(longest, SOURCE.encode())}, format="multipart")
    assert r.status_code == 201, r.content
    assert r.data["filename"] == longest


def test_a_json_file_name_over_255_characters_is_the_same_400(
    api: APIClient, user: Any, enqueued: Enqueued
) -> None:
    bot = BotFactory(owner=user)
    body = {"filename": "b" * 300 + ".py", "source": SOURCE}
    r = api.post(f"/api/bots/{bot.pk}/versions/", body, format="json")
    assert r.status_code == 400, r.content
    assert r.data["filename"] == ["the file name is 303 characters long; at most 255 are allowed"]


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    sent=st.text(st.characters(exclude_categories=()), min_size=1, max_size=300),
    multipart=st.booleans(),
)
@example(sent="b" * 300, multipart=True)
@example(sent="\ud800\x00", multipart=False)
@example(sent="\r", multipart=False)
def test_any_file_name_is_kept_whole_and_printable_or_refused_with_a_400(
    api: APIClient, user: Any, enqueued: Enqueued, sent: str, multipart: bool
) -> None:
    bot = BotFactory(owner=user)
    url = f"/api/bots/{bot.pk}/versions/"
    # Every example's upload stays pending (nothing validates here): the account's cap on
    # uploads being validated would refuse the fourth, which is not what this test is about.
    with throttle_rates(uploads="100000/hour"), override_settings(FAIR_MAX_PENDING_VERSIONS=1000):
        if multipart:  # a header cannot carry a lone surrogate: it is not UTF-8
            name = sent.encode("utf-8", "replace").decode("utf-8") + ".py"
            r = api.post(url, {"file": named(name, SOURCE.encode())}, format="multipart")
        else:
            name = sent + ".py"
            body = json.dumps({"filename": name, "source": SOURCE})  # ASCII: surrogates escaped
            r = api.post(url, body, content_type="application/json")
    assert r.status_code in (201, 400), r.content
    if r.status_code == 201:
        stored = BotVersion.objects.get(pk=r.data["id"]).filename
        assert len(name) <= 255 and unprintable(stored) is None  # never cut to fit
        # DRF trims a JSON field's whitespace; Django keeps only the last part of a path sent.
        assert stored == name.strip() or multipart


def test_a_native_library_renamed_as_data_is_refused_at_upload(
    api: APIClient, user: Any, enqueued: Enqueued
) -> None:
    bot = BotFactory(owner=user)
    data = zipped({"bot.py": SOURCE.encode(), "lib/fast.dat": b"\x7fELF\x02\x01\x01" + b"\0" * 9})
    f = SimpleUploadedFile("bot.zip", data, content_type="application/zip")
    r = api.post(f"/api/bots/{bot.pk}/versions/", {"file": f}, format="multipart")
    assert r.status_code == 400, r.content
    assert r.data["file"][0].startswith("lib/fast.dat is compiled code (an ELF executable")
    assert "numpy" in r.data["file"][0]
    assert not BotVersion.objects.filter(bot=bot).exists()
    assert enqueued.validate_bot_version == []
