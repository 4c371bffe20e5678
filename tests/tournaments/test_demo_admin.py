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
