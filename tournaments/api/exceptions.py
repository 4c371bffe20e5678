"""Turns the services' refusals into 400s with a message per field, like DRF's own validation."""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from tournaments.services import Invalid


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, Invalid):
        exc = ValidationError(exc.errors)
    return drf_exception_handler(exc, context)
