"""A bot's errors (its faults: non-ok verdicts) and its webhook's deliveries, as the API shows them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.sandbox.verdicts import Verdict
from tournaments.play import visibility
from tournaments.play.models import Fault, WebhookDelivery

FAULT_VERDICTS = [v.value for v in Verdict if v != Verdict.OK]


def viewer_link(fault: Fault, detail_shown: bool) -> str:
    """The viewer at the fault's step, scrolled to the bot's stderr; from its seat's view
    for those who may read its logs (the seat's view is theirs), the public view otherwise."""
    query = f"?step={fault.step}"
    if detail_shown:
        query += f"&view=seat{fault.seat}"
    return reverse("site-match", args=[fault.match_id]) + query + "#stderr"


def detail_shown(context: Mapping[str, Any], fault: Fault) -> bool:
    request = context.get("request")
    user = getattr(request, "user", None) or context.get("user")
    return visibility.may_read_fault_detail(user, context["bot"], fault.match)


class FaultFilterSerializer(serializers.Serializer[Any]):
    verdict = serializers.ChoiceField(
        choices=FAULT_VERDICTS, required=False, help_text="Only this kind of error."
    )


class FaultSerializer(serializers.ModelSerializer[Fault]):
    """One non-ok verdict on a decision of one of the bot's versions."""

    kind = serializers.CharField(source="verdict", read_only=True, help_text="The verdict.")
    version = serializers.IntegerField(source="bot_version.number", read_only=True)
    match = serializers.UUIDField(source="match_id", read_only=True)
    match_status = serializers.CharField(source="match.status", read_only=True)
    step = serializers.IntegerField(
        read_only=True,
        help_text="The verdict's step: the viewer shows it there, with the decision's stderr.",
    )
    asked_step = serializers.IntegerField(
        read_only=True, help_text="The step the bot was asked at (the logs' step)."
    )
    detail = serializers.SerializerMethodField(
        help_text="The first line of the verdict's detail (the exception, the refused action);"
        " null unless you may read the bot's logs in that match (its owner; staff once over)."
    )
    viewer_url = serializers.SerializerMethodField(
        help_text="The match's page at that step, with the bot's stderr."
    )

    class Meta:
        model = Fault
        fields = [
            "kind",
            "version",
            "match",
            "match_status",
            "seat",
            "step",
            "asked_step",
            "detail",
            "viewer_url",
            "created_at",
        ]
        read_only_fields = fields

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_detail(self, fault: Fault) -> str | None:
        return fault.detail if detail_shown(self.context, fault) else None

    @extend_schema_field(serializers.CharField())
    def get_viewer_url(self, fault: Fault) -> str:
        return viewer_link(fault, detail_shown(self.context, fault))


class WebhookDeliverySerializer(serializers.ModelSerializer[WebhookDelivery]):
    class Meta:
        model = WebhookDelivery
        fields = ["event", "delivery", "attempt", "status_code", "error", "sent_at"]
        read_only_fields = fields
