"""No endpoint answers 500 to garbage: malformed bodies, wrong types, junk in every known field."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from tests.api.conftest import Enqueued, throttle_rates
from tests.factories import BotFactory, BotVersionFactory

pytestmark = pytest.mark.django_db

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
KNOWN = [
    "username",
    "password",
    "email",
    "game",
    "name",
    "description",
    "is_public",
    "is_active",
    "filename",
    "source",
    "file",
    "seats",
    "bot_version",
    "builtin",
    "options",
    "seed",
]
seat_junk = st.lists(
    st.fixed_dictionaries({}, optional={"bot_version": values, "builtin": values}) | values,
    max_size=7,
)
bodies = values | st.fixed_dictionaries(
    {},
    optional={
        **{k: values for k in KNOWN},
        "seats": seat_junk | values,
        "game": st.sampled_from(["brexit", "brasilis"]) | values,
    },
)

RAW = [
    b"{",
    b"not json",
    b"\xff\xfe\x00",
    b'{"game": NaN}',
    b"[1, 2",
    b'"just a string"',
    b"null",
    b"1e999999",
]


def write_urls(bot_id: int) -> list[tuple[str, str]]:
    return [
        ("post", "/api/accounts/"),
        ("post", "/api/accounts/token/"),
        ("post", "/api/bots/"),
        ("patch", f"/api/bots/{bot_id}/"),
        ("put", f"/api/bots/{bot_id}/"),
        ("post", f"/api/bots/{bot_id}/versions/"),
        ("post", "/api/matches/"),
    ]


@pytest.fixture
def target(user: Any) -> int:
    bot = BotFactory(owner=user)
    BotVersionFactory(bot=bot)
    return bot.pk


def test_malformed_bodies_are_400s(api: APIClient, target: int, enqueued: Enqueued) -> None:
    for method, url in write_urls(target):
        for raw in RAW:
            r = getattr(api, method)(url, raw, content_type="application/json")
            assert r.status_code == 400, (method, url, raw, r.status_code, r.content[:300])


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=bodies)
def test_no_endpoint_500s_on_any_json(
    api: APIClient, target: int, enqueued: Enqueued, body: Any
) -> None:
    with throttle_rates(challenges="10000/minute", uploads="10000/minute"):
        for method, url in write_urls(target):
            r = getattr(api, method)(url, json.dumps(body), content_type="application/json")
            assert r.status_code < 500, (method, url, body, r.content[:300])


def test_ids_beyond_bigint_are_not_found_not_errors(api: APIClient, enqueued: Enqueued) -> None:
    huge = 2**70
    assert api.get(f"/api/bots/{huge}/").status_code == 404
    assert api.get(f"/api/bots/{huge}/versions/{huge}/source/").status_code == 404
    assert api.get(f"/api/matches/?bot={huge}").status_code == 200
    seats = [{"bot_version": huge}, {"builtin": "random"}, {"builtin": "random"}]
    r = api.post("/api/matches/", {"game": "brexit", "seats": seats}, format="json")
    assert r.status_code == 400
    assert "unknown bot version" in r.data["seats"][0]
