"""Series and A/B tests: start one, list yours, read one's results, cancel it.

A series is its owner's (and staff's): anyone else gets a 404, as for a thing that does not
exist. Its matches are ordinary matches, seen through the match endpoints by their own rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.competition import selectors, services
from tournaments.site.api.permissions import Authenticated
from tournaments.site.api.series_serializers import (
    SeriesListSerializer,
    SeriesRequestSerializer,
    SeriesSerializer,
)
from tournaments.site.api.throttles import ChallengeThrottle, ChargedOnSuccess

if TYPE_CHECKING:
    from tournaments.competition.models import Series


def _detail(series: Series) -> dict[str, Any]:
    context = {"matches": selectors.series_matches, "results": selectors.series_results}
    return dict(SeriesSerializer(series, context=context).data)


class SeriesListView(ChargedOnSuccess, generics.ListAPIView["Series"]):
    serializer_class = SeriesListSerializer
    permission_classes = [Authenticated]
    throttle_classes = [ChallengeThrottle]

    def get_queryset(self) -> QuerySet[Series]:
        return selectors.series_of(self.request.user)

    @extend_schema(summary="Your series and A/B tests, newest first")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        request=SeriesRequestSerializer,
        responses={201: SeriesSerializer},
        summary="Start a series (duplicate deals among chosen players) or an A/B test",
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = SeriesRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        series = services.create_series(
            user=request.user,
            game=v["game"],
            players=v["players"],
            deals=v["deals"],
            options=v["options"],
            name=v["name"],
            test=v["test"],
        )
        return Response(_detail(series), status=status.HTTP_201_CREATED)


class SeriesDetailView(APIView):
    permission_classes = [Authenticated]

    @extend_schema(
        responses={200: SeriesSerializer},
        summary="One series: its matches and results, or an A/B test's LLR path and verdict",
    )
    def get(self, request: Request, series_id: int) -> Response:
        series = get_object_or_404(selectors.series_visible_to(request.user), pk=series_id)
        return Response(_detail(series))


class SeriesCancelView(APIView):
    permission_classes = [Authenticated]

    @extend_schema(request=None, responses={200: SeriesSerializer}, summary="Cancel a series")
    def post(self, request: Request, series_id: int) -> Response:
        series = get_object_or_404(selectors.series_visible_to(request.user), pk=series_id)
        return Response(_detail(services.cancel_series(series=series)))
