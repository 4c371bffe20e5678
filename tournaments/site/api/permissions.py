"""Who may do what. Visibility is decided by tournaments.play.selectors; these only gate the request."""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request


class ReadOrAuthenticated(BasePermission):
    """Anyone may read; writing needs a logged-in user (401 with a token challenge otherwise)."""

    def has_permission(self, request: Request, view: Any) -> bool:
        return request.method in SAFE_METHODS or bool(
            request.user and request.user.is_authenticated
        )


class Authenticated(BasePermission):
    """Owner-only reads (logs) need a user even to read."""

    def has_permission(self, request: Request, view: Any) -> bool:
        return bool(request.user and request.user.is_authenticated)
