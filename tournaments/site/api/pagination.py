"""Every list's pages: limit and offset, bounded so that no query asks for more than it may.

DRF's LimitOffsetPagination has no ceiling by default (``?limit=100000`` returns everything)
and passes any offset to Postgres, where one past bigint is a 500. Here the limit is capped and
an offset that no list can reach is a 400 that says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from typing import Any

from django.db.models import QuerySet
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import BasePagination, LimitOffsetPagination, _positive_int
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from tournaments.play import keyset

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


class MatchPages(BasePagination):
    """The match list's pages by cursor (tournaments/play/keyset.py): ``next`` and ``previous``
    links, ``limit`` per page, and no ``count``: counting, like an offset, would cost the whole
    table on every request. An ``offset`` is a 400 naming the ``next`` link, not ignored (a
    client paging by offset would otherwise read the first page forever)."""

    cursor_query_param = "cursor"
    limit_query_param = "limit"

    def paginate_queryset(
        self, queryset: QuerySet[Any] | Sequence[Any], request: Request, view: APIView | None = None
    ) -> list[Any]:
        assert isinstance(queryset, QuerySet)  # the match list's, which keyset pages
        if "offset" in request.query_params:
            raise ValidationError(
                {"offset": "matches are paged by cursor: follow each page's next link"}
            )
        limit: int = api_settings.PAGE_SIZE or MAX_LIMIT
        # As LimitOffsetPagination: a limit that is no whole number gives the default.
        with suppress(KeyError, ValueError):
            limit = _positive_int(
                request.query_params[self.limit_query_param], strict=True, cutoff=MAX_LIMIT
            )
        try:
            self.page = keyset.page(
                queryset, request.query_params.get(self.cursor_query_param), limit
            )
        except keyset.BadCursor as exc:
            raise ValidationError({self.cursor_query_param: str(exc)}) from None
        self.request = request
        return self.page.matches

    def _link(self, cursor: str | None) -> str | None:
        if cursor is None:
            return None
        return replace_query_param(
            self.request.build_absolute_uri(), self.cursor_query_param, cursor
        )

    def get_paginated_response(self, data: Any) -> Response:
        return Response(
            {
                "next": self._link(self.page.older),
                "previous": self._link(self.page.newer),
                "results": data,
            }
        )

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        link = {"type": "string", "nullable": True, "format": "uri"}
        return {
            "type": "object",
            "required": ["results"],
            "properties": {"next": link, "previous": link, "results": schema},
        }

    def get_schema_operation_parameters(self, view: APIView) -> list[dict[str, Any]]:
        return [
            {
                "name": self.cursor_query_param,
                "required": False,
                "in": "query",
                "description": "Where the page starts: take it from the previous page's next or previous link.",
                "schema": {"type": "string"},
            },
            {
                "name": self.limit_query_param,
                "required": False,
                "in": "query",
                "description": f"Matches per page (at most {MAX_LIMIT}).",
                "schema": {"type": "integer"},
            },
        ]
