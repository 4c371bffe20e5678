"""A bot's errors: ``GET /api/bots/{id}/errors/`` (its non-ok verdicts, grouped by kind)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.request import Request
from rest_framework.response import Response

from tournaments.play import selectors
from tournaments.site.api.fault_serializers import FaultFilterSerializer, FaultSerializer
from tournaments.site.api.permissions import ReadOrAuthenticated

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from tournaments.play.models import Bot, Fault


class BotErrorsView(generics.ListAPIView["Fault"]):
    """The bot's errors, as its page lists them: a private bot's to its owner (and staff) only;
    another user's smoke matches left out; each detail as private as the bot's logs."""

    serializer_class = FaultSerializer
    permission_classes = [ReadOrAuthenticated]

    def bot(self) -> Bot:
        if not hasattr(self, "_bot"):
            found = selectors.bots_visible_to(self.request.user)
            self._bot = get_object_or_404(found, pk=self.kwargs["bot_id"])
        return self._bot

    def get_serializer_context(self) -> dict[str, Any]:
        return {**super().get_serializer_context(), "bot": self.bot()}

    def get_queryset(self) -> QuerySet[Fault]:
        filters = FaultFilterSerializer(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        verdict = filters.validated_data.get("verdict")
        return selectors.bot_faults(self.request.user, self.bot(), verdict=verdict)

    @extend_schema(
        parameters=[FaultFilterSerializer],
        summary="A bot's errors: every non-ok verdict of its versions, by kind, newest first",
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)
