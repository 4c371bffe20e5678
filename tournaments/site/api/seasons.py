"""Seasons: entrants, schedule, progress and standings. Read-only; staff run seasons in the admin.

The views read through competition's selectors; the shapes are api/season_serializers.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from tournaments.competition import selectors
from tournaments.site.api.season_serializers import (
    FixtureSerializer,
    SeasonFilter,
    SeasonListSerializer,
    SeasonSerializer,
)

if TYPE_CHECKING:
    from tournaments.competition.models import Fixture, Season


class SeasonListView(generics.ListAPIView["Season"]):
    serializer_class = SeasonListSerializer
    permission_classes = [AllowAny]

    def get_queryset(self) -> QuerySet[Season]:
        filters = SeasonFilter(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        return selectors.seasons_listed(**filters.validated_data)

    @extend_schema(parameters=[SeasonFilter], summary="Seasons, newest first")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class SeasonDetailView(generics.RetrieveAPIView["Season"]):
    serializer_class = SeasonSerializer
    permission_classes = [AllowAny]
    lookup_url_kwarg = "season_id"

    def get_queryset(self) -> QuerySet[Season]:
        return selectors.seasons_listed()

    def get_serializer(self, *args: Any, **kwargs: Any) -> Any:
        # The standings are read here, as the caller may see them, and handed to the serializer.
        if args:
            standings = selectors.standings_seen_by(args[0], self.request.user)
            kwargs["context"] = {**self.get_serializer_context(), "standings": standings}
        return super().get_serializer(*args, **kwargs)

    @extend_schema(summary="One season: entrants, progress and standings with 95% intervals")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class SeasonScheduleView(generics.ListAPIView["Fixture"]):
    serializer_class = FixtureSerializer
    permission_classes = [AllowAny]

    def get_serializer_context(self) -> dict[str, Any]:
        season = get_object_or_404(selectors.seasons(), pk=self.kwargs["season_id"])
        hidden = selectors.hidden_entrants(season, self.request.user)
        return {**super().get_serializer_context(), "hidden": hidden}

    def get_queryset(self) -> QuerySet[Fixture]:
        season = get_object_or_404(selectors.seasons(), pk=self.kwargs["season_id"])
        return selectors.schedule(season)

    @extend_schema(summary="A season's schedule: every game, its match once started")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)
