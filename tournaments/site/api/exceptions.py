"""The API's errors: services' refusals become 400s with a message per field (like DRF's own
validation), an account over its share of the workers a 429 with the reason and Retry-After
(tournaments/play/allowance.py), and a URL no route matches is a JSON 404 like any other of the API's.

Django's own refusals of a request body (too many fields or files) would otherwise reach
Django's handler and answer with an HTML page: the API answers JSON. Bodies too large never get
this far (tournaments.site.api.body_limits refuses them unread).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import TooManyFieldsSent, TooManyFilesSent
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from tournaments.play.services import Invalid, OverLimit


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, TooManyFieldsSent):
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        detail = f"too many fields in the request: at most {limit} are accepted"
        return Response({"detail": detail}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, TooManyFilesSent):
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FILES
        detail = f"too many files in the request: at most {limit} are accepted"
        return Response({"detail": detail}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, OverLimit):
        headers = {"Retry-After": str(exc.retry_after)}
        return Response({"detail": exc.message}, status=429, headers=headers)
    if isinstance(exc, Invalid):
        exc = ValidationError(exc.errors)
    return drf_exception_handler(exc, context)


@csrf_exempt  # it changes nothing: a POST gets the same 404, not the CSRF failure page
def not_found(request: HttpRequest, rest: str = "") -> HttpResponse:
    """A URL under /api/ that no route matches (``/api/bots/-1/``): the API's JSON 404, as DRF's,
    not Django's page (an HTML one, or with DEBUG its debugging page)."""
    return JsonResponse({"detail": "Not found."}, status=404)
