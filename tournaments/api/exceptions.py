"""Turns the services' refusals into 400s with a message per field, like DRF's own validation.

Django's own refusals of a request body (too many fields or files) would otherwise reach
Django's handler and answer with an HTML page: the API answers JSON. Bodies too large never get
this far (tournaments.api.body_limits refuses them unread).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import TooManyFieldsSent, TooManyFilesSent
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from tournaments.services import Invalid


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, TooManyFieldsSent):
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        detail = f"too many fields in the request: at most {limit} are accepted"
        return Response({"detail": detail}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, TooManyFilesSent):
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FILES
        detail = f"too many files in the request: at most {limit} are accepted"
        return Response({"detail": detail}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, Invalid):
        exc = ValidationError(exc.errors)
    return drf_exception_handler(exc, context)
