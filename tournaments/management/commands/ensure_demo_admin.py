"""Create the demo admin user once and say how to log in as it.

`make up` sets no password: the user gets the well-known demo one, printed every run so a
developer can log in. A deployment sets ``DEMO_ADMIN_PASSWORD`` (deploy/compose.yml requires
it): that password is a secret and is never printed, since the command's output ends up in
the container's logs (docs/deploy.md).
"""

from __future__ import annotations

import os
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

DEMO_PASSWORD = "backroom-admin"  # noqa: S105 (the well-known demo password make up prints, by design)
ADMIN_URL = "http://127.0.0.1:8000/admin/"


class Command(BaseCommand):
    help = (
        "Create the demo superuser if missing; prints the demo password, never one set in"
        " DEMO_ADMIN_PASSWORD."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        username = os.environ.get("DEMO_ADMIN_USER", "admin")
        chosen = os.environ.get("DEMO_ADMIN_PASSWORD")
        password = chosen or DEMO_PASSWORD
        shown = "the one in DEMO_ADMIN_PASSWORD (not shown)" if chosen else repr(DEMO_PASSWORD)
        user_model = get_user_model()
        if user_model.objects.filter(username=username).exists():
            self.stdout.write(
                f"Admin: {ADMIN_URL}  user {username!r} (already exists; its password is"
                f" {shown} unless someone changed it)"
            )
            return
        user_model.objects.create_superuser(username, f"{username}@example.com", password)
        advice = "" if chosen else "  (demo credentials: change them in production)"
        self.stdout.write(f"Admin: {ADMIN_URL}  user {username!r}  password {shown}{advice}")
