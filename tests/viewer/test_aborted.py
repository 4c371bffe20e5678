"""An aborted match's log line: the reason for those who may read it, a clean sentence otherwise."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import UserFactory, abort
from tests.viewer.conftest import play, running_copy

pytestmark = pytest.mark.django_db

REASON = "worker lost: platform-internal-trace"


@pytest.mark.parametrize("who", ["anon", "stranger", "owner"])
def test_abort_line_reads_cleanly_without_the_reason(who: str) -> None:
    owner = UserFactory.create()
    m = running_copy(play("brexit", 3, None, seed=9), upto=10, owner=owner)
    abort(m, REASON)
    c = Client()
    if who != "anon":
        c.force_login(owner if who == "owner" else UserFactory.create())
    html = c.get(f"/matches/{m.pk}/").content.decode()
    if who == "owner":
        assert f"The match was aborted: {REASON}" in html
    else:
        assert REASON not in html
        assert "The match was aborted." in html and "The match was aborted:" not in html
