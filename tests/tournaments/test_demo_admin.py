"""`make up` names the demo admin's credentials every time, not only the first."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def test_the_demo_admin_s_password_is_printed_on_every_run() -> None:
    for _ in range(2):
        out = StringIO()
        call_command("ensure_demo_admin", stdout=out)
        assert "user 'admin'" in out.getvalue() and "'backroom-admin'" in out.getvalue()


def test_a_password_set_by_the_operator_is_never_printed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compose deployment sets DEMO_ADMIN_PASSWORD and keeps `migrate`'s output in its logs."""
    from django.contrib.auth import get_user_model

    secret = "operator-chosen-9f2c41"
    monkeypatch.setenv("DEMO_ADMIN_PASSWORD", secret)
    for _ in range(2):  # when it creates the user, and when the user already exists
        out, err = StringIO(), StringIO()
        call_command("ensure_demo_admin", stdout=out, stderr=err)
        assert "user 'admin'" in out.getvalue() and "DEMO_ADMIN_PASSWORD" in out.getvalue()
        assert secret not in out.getvalue() + err.getvalue()
    assert get_user_model().objects.get(username="admin").check_password(secret)
