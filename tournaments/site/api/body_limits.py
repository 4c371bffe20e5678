"""Request bodies refused on their Content-Length alone, before a byte of them is read.

Django caps form data it keeps in memory (DATA_UPLOAD_MAX_MEMORY_SIZE) but streams any file
part of a multipart body to a temporary file whatever its size, and says no to an oversized
body with an HTML page. The API answers JSON, and reads nothing of a body it will refuse.
Under WSGI a body without a Content-Length is not read at all, so the header is the whole story;
which is also why a chunked body (Transfer-Encoding, no Content-Length) is refused with a 411:
Django would see it as empty and answer "field required" about fields that were sent.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

API_PREFIX = "/api/"


def content_length(request: HttpRequest) -> int:
    try:
        return max(0, int(request.META.get("CONTENT_LENGTH") or 0))
    except ValueError:  # Django itself reads a malformed length as 0
        return 0


def too_large(length: int, limit: int, what: str = "a request body") -> str:
    """The message of a 413."""
    return f"the request body is {length} bytes; {what} may be at most {limit} bytes"


LENGTH_REQUIRED = (
    "send the request body with a Content-Length header: a chunked body (Transfer-Encoding) "
    "is not read"
)


def unread_body(request: HttpRequest) -> bool:
    """A body is announced by Transfer-Encoding but has no Content-Length: WSGI reads none of it."""
    encoding = request.META.get("HTTP_TRANSFER_ENCODING", "").strip().lower()
    return encoding not in ("", "identity") and not request.META.get("CONTENT_LENGTH")


class BodySizeLimit:
    """Every API request's body is at most DATA_UPLOAD_MAX_MEMORY_SIZE bytes, files included."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith(API_PREFIX) and unread_body(request):
            return JsonResponse({"detail": LENGTH_REQUIRED}, status=411)
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if limit is not None and request.path.startswith(API_PREFIX):
            length = content_length(request)
            if length > limit:
                return JsonResponse({"detail": too_large(length, limit)}, status=413)
        return self.get_response(request)
