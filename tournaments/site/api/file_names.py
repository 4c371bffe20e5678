"""A multipart file part's name as the client sent it.

Django cuts a longer name to 255 characters when it makes the UploadedFile (keeping what
looks like its extension), so the API would store a name the author never chose instead of
refusing it. This upload handler, run before Django's own, only writes down each part's name.
"""

from __future__ import annotations

from typing import Any

from django.core.files.uploadhandler import FileUploadHandler


class SentNames(FileUploadHandler):
    """Each file part's name by field, uncut; passes every byte on to the next handler."""

    def __init__(self, request: Any = None) -> None:
        super().__init__(request)
        self.names: dict[str, str] = {}

    def new_file(self, field_name: str, file_name: str, *args: Any, **kwargs: Any) -> None:
        super().new_file(field_name, file_name, *args, **kwargs)
        self.names[field_name] = file_name

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None  # the next handler makes the file


def record_sent_names(request: Any) -> dict[str, str]:
    """Have ``request``'s multipart files' names written down as sent; call before it is parsed.

    The dict fills in as the body is parsed (on the first read of ``request.data``).
    """
    handler = SentNames(request)
    request.upload_handlers.insert(0, handler)
    return handler.names
