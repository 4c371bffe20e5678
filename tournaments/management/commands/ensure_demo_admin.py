"""Create the demo admin user once and print its credentials (change them in production)."""

from __future__ import annotations

import os
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create the demo superuser if missing and print its credentials."

    def handle(self, *args: Any, **options: Any) -> None:
        username = os.environ.get("DEMO_ADMIN_USER", "admin")
        password = os.environ.get("DEMO_ADMIN_PASSWORD", "backroom-admin")
        user_model = get_user_model()
        if user_model.objects.filter(username=username).exists():
            self.stdout.write(
                f"Admin: http://127.0.0.1:8000/admin/  user {username!r} (already exists; its"
                f" password is {password!r} unless someone changed it)"
            )
            return
        user_model.objects.create_superuser(username, f"{username}@example.com", password)
        self.stdout.write(
            f"Admin: http://127.0.0.1:8000/admin/  user {username!r}  password {password!r}"
            "  (demo credentials: change them in production)"
        )
