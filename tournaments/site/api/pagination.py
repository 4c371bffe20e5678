"""Every list's pages: limit and offset, bounded so that no query asks for more than it may.

DRF's LimitOffsetPagination has no ceiling by default (``?limit=100000`` returns everything)
and passes any offset to Postgres, where one past bigint is a 500. Here the limit is capped and
an offset that no list can reach is a 400 that says so.
"""

from __future__ import annotations

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request

MAX_LIMIT = 500
MAX_OFFSET = 10**9
"""Far beyond any list here, far below Postgres' bigint."""


class Pages(LimitOffsetPagination):
    max_limit = MAX_LIMIT

    def get_offset(self, request: Request) -> int:
        offset = super().get_offset(request)
        if offset > MAX_OFFSET:
            raise ValidationError({"offset": f"must be at most {MAX_OFFSET}"})
        return offset
