"""Every query parameter of every route (the API, the site's pages, the admin): a NUL, bytes that are
not UTF-8 (a lone surrogate) or an absurd length is a 400 that says which parameter and why, never
a 500 nor an answer computed from a mangled value.

The routes are enumerated from Django's URL resolver (tests/api/test_endpoint_matrix.py), so a
new list or page is checked as soon as it exists.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import get_resolver, reverse

from tests.api.test_endpoint_matrix import _routes, admin_names, url_of, world  # noqa: F401
from tournaments.site.query_params import MAX_LENGTH

pytestmark = pytest.mark.django_db

# The query, and what the refusal must say.
BAD: dict[str, tuple[str, str]] = {
    "nul": ("game=%00", "'game' holds a NUL character"),
    "nul inside": ("game=a%00b", "'game' holds a NUL character"),
    "nul in a name": ("%00=1", "a parameter name holds a NUL character"),
    "lone surrogate": ("game=%ED%A0%80", "not UTF-8"),
    "lone surrogate in a name": ("%ED%A0%80=1", "not UTF-8"),
    "raw byte": ("game=%FF", "not UTF-8"),
    "absurd length": ("game=" + "a" * (MAX_LENGTH + 1), f"'game' is longer than {MAX_LENGTH}"),
    "absurd name": ("b" * (MAX_LENGTH + 1) + "=1", f"longer than {MAX_LENGTH}"),
}


def _every_get_url(world: dict[str, Any]) -> list[str]:  # noqa: F811
    routes = dict(_routes(get_resolver().url_patterns))
    urls = [url_of(world, name, pattern) for name, pattern in sorted(routes.items())]
    return urls + [reverse(name) for name in admin_names()]


@pytest.mark.parametrize("bad", sorted(BAD))
@pytest.mark.parametrize("role", ["anon", "staff"])
def test_every_route_refuses_an_unreadable_query_parameter(
    world: dict[str, Any],  # noqa: F811
    bad: str,
    role: str,
) -> None:
    query, says = BAD[bad]
    c = Client()
    if world["users"][role] is not None:
        c.force_login(world["users"][role])
    urls = _every_get_url(world)
    assert len(urls) > 40  # the API, the pages and the admin's
    wrong: list[tuple[str, object, str]] = []
    for url in urls:
        r = c.get(f"{url}?{query}")
        body = r.content.decode()
        if r.status_code != 400 or says not in body.replace("&#x27;", "'"):
            wrong.append((url, r.status_code, body[:200]))
        elif url.startswith("/api/") and says not in r.json()["detail"]:
            wrong.append((url, "not the API's JSON error", body[:200]))
    assert wrong == []


def test_a_sound_query_still_reads(world: dict[str, Any]) -> None:  # noqa: F811
    """The check refuses only what no parameter may hold: the longest allowed value passes."""
    c = Client()
    assert c.get(f"/api/matches/?game=brexit&x={'a' * MAX_LENGTH}").status_code == 200
    assert c.get("/matches/?note=br%C3%A9xit").status_code == 200  # UTF-8, a name no page reads
    # Read, and sound, but no game is called that: the page's own 400, as the API's.
    unknown = c.get("/matches/?game=br%C3%A9xit")
    assert unknown.status_code == 400 and "game must be one of" in unknown.content.decode()


def test_the_schema_documents_the_400_on_every_operation() -> None:
    """Every operation reads its query string (any query string), so every one can answer 400."""
    schema = Client().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    missing = [
        f"{method.upper()} {path}"
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if "400" not in operation["responses"]
    ]
    assert missing == []


def test_the_bots_list_refuses_an_unknown_game_as_the_other_lists_do(
    world: dict[str, Any],  # noqa: F811
) -> None:
    c = Client()
    for url in ("/api/bots/", "/api/matches/", "/api/ladders/", "/api/seasons/"):
        r = c.get(f"{url}?game=chess")
        assert r.status_code == 400, (url, r.content)
        assert "not a valid choice" in r.json()["game"][0], url
    assert c.get("/api/bots/?game=brexit").status_code == 200


@pytest.mark.parametrize("url", ["/?game=%00", "/matches/?bot=x", "/api/matches/?game=%00"])
def test_a_refused_query_is_logged_as_one_line_without_a_traceback(
    url: str, caplog: pytest.LogCaptureFixture
) -> None:
    # An outside reviewer's 23,670 fuzzed requests wrote 3,995 tracebacks to the server's log:
    # anyone could flood it. A refusal is the client's mistake, not the platform's.
    with caplog.at_level("INFO"):
        assert Client().get(url).status_code == 400
    assert [r for r in caplog.records if r.exc_info] == []
