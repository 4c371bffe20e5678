"""A bot's webhook: a URL its owner sets, called on each rejected version and each crash,
timeout or disqualification of the bot in a match (docs/bots.md, Webhook).

Each call is a POST of one JSON object, signed with the bot's secret (HMAC-SHA256 of the
body, header ``X-Backroom-Signature: sha256=<hex>``), sent by a Celery task
(tournaments.tasks.send_webhook) once the transaction that recorded the event commits. A
call that fails or answers 5xx is tried again after 1, 2, 4... times
``WEBHOOK_BACKOFF_SECONDS``, ``WEBHOOK_ATTEMPTS`` times at most; every attempt is recorded
(``WebhookDelivery``) and listed on the bot's errors page.

A webhook is a request the platform makes on an author's behalf, so the URL must not reach
the platform's own network (SSRF): only http(s), and unless ``WEBHOOK_ALLOW_PRIVATE`` (the
tests' loopback server), only to public addresses, checked when the URL is set and again at
each attempt (a name may resolve elsewhere later). Redirects are not followed.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import secrets
import socket
import urllib.error
import urllib.request
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from celery import current_app
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import transaction
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from config import queues
from tournaments.play.models import Bot, BotVersion, Match, WebhookDelivery

if TYPE_CHECKING:
    from tournaments.play.models import Fault

log = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-Backroom-Signature"
"""``sha256=`` and the hex HMAC-SHA256 of the raw body, keyed by the bot's webhook secret."""
EVENT_HEADER = "X-Backroom-Event"
DELIVERY_HEADER = "X-Backroom-Delivery"
NOTIFIED = frozenset({"crash", "timeout", "disqualified"})
"""The verdicts a webhook is called for (and ``rejected``, a version that failed validation)."""
REJECTED = "rejected"
TIMEOUT_SECONDS = 10
MAX_URL_CHARS = Bot._meta.get_field("webhook_url").max_length or 500
_URLS = URLValidator(schemes=["http", "https"])
DETAIL_CHARS = 4000


class BadWebhook(ValueError):
    """A URL the platform will not call; the message says why."""


def new_secret() -> str:
    return secrets.token_hex(32)


def sign(secret: str, body: bytes) -> str:
    """The signature header's value for ``body``."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def attempts() -> int:
    return int(getattr(settings, "WEBHOOK_ATTEMPTS", 5))


def backoff(attempt: int) -> float:
    """Seconds before the attempt after ``attempt`` (1, 2, ...): doubling each time."""
    return float(getattr(settings, "WEBHOOK_BACKOFF_SECONDS", 30)) * 2.0 ** (attempt - 1)


def check_url(url: str) -> str:
    """``url`` if the platform may call it; BadWebhook says why not."""
    if len(url) > MAX_URL_CHARS:
        raise BadWebhook(f"a webhook URL has at most {MAX_URL_CHARS} characters")
    try:
        _URLS(url)
    except ValidationError:
        raise BadWebhook(f"a webhook must be an http or https URL, not {url[:80]!r}") from None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise BadWebhook(f"a webhook must be an http or https URL, not {parts.scheme or 'none'!r}")
    host = parts.hostname
    if not host:
        raise BadWebhook("a webhook URL must name a host")
    if parts.username or parts.password:
        raise BadWebhook("a webhook URL must not carry a user name or password")
    if getattr(settings, "WEBHOOK_ALLOW_PRIVATE", False):
        return url
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        found = {
            str(info[4][0]) for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        }
    except (OSError, ValueError, UnicodeError):
        # The resolver's own words ("[Errno -2] Name or service not known") mean nothing to
        # an author: say what is wrong in theirs.
        raise BadWebhook(f"the host name {host!r} does not resolve") from None
    for address in found:
        ip = ipaddress.ip_address(address.split("%")[0])
        if not ip.is_global or ip.is_multicast:
            raise BadWebhook(
                f"the webhook's host {host!r} is a private, loopback or reserved address"
                f" ({ip}); only public addresses are called"
            )
    return url


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def notify_faults(faults: Sequence[tuple[Fault, str]]) -> None:
    """Call the webhooks of the faults' bots for those in NOTIFIED (after the commit).

    Not for a smoke match's: any fault there rejects the version, and that is the call made.
    """
    told = [(f, detail) for f, detail in faults if f.verdict in NOTIFIED]
    if not told:
        return
    hooks = dict(
        Bot.objects.filter(pk__in={f.bot_id for f, _ in told})
        .exclude(webhook_url="")
        .values_list("pk", "name")
    )
    smoke = Match.objects.filter(
        pk__in={f.match_id for f, _ in told}, validation_of__isnull=False
    ).values_list("pk", flat=True)
    if not hooks or set(smoke):
        return
    numbers = dict(
        BotVersion.objects.filter(pk__in={f.bot_version_id for f, _ in told}).values_list(
            "pk", "number"
        )
    )
    now = _iso(timezone.now())
    for fault, detail in told:
        if fault.bot_id not in hooks:
            continue
        _send_on_commit(
            fault.bot_id,
            {
                "event": fault.verdict,
                "bot": {"id": fault.bot_id, "name": hooks[fault.bot_id]},
                "version": numbers[fault.bot_version_id],
                "match": str(fault.match_id),
                "seat": fault.seat,
                "step": fault.step,
                "asked_step": fault.asked_step,
                "detail": detail[:DETAIL_CHARS],
                "time": now,
            },
        )


def notify_rejected(version: BotVersion) -> None:
    """Call the bot's webhook for a version that failed validation (after the commit)."""
    bot = version.bot
    if not bot.webhook_url:
        return
    smoke = Match.objects.filter(validation_of=version).order_by("-created_at").values("id").first()
    _send_on_commit(
        bot.pk,
        {
            "event": REJECTED,
            "bot": {"id": bot.pk, "name": bot.name},
            "version": version.number,
            "match": str(smoke["id"]) if smoke else None,
            "seat": None,
            "step": None,
            "asked_step": None,
            "detail": version.validation_error[:DETAIL_CHARS],
            "time": _iso(version.validated_at or timezone.now()),
        },
    )


def _send_on_commit(bot_id: int, payload: dict[str, Any]) -> None:
    delivery = str(uuid.uuid4())
    transaction.on_commit(lambda: _send(bot_id, payload, delivery))


def _send(bot_id: int, payload: dict[str, Any], delivery: str) -> None:
    """Queue the call by the task's name (play cannot import the tasks: tournaments/play/dispatch.py
    says why); a broker that is down loses this call, logged, never the match."""
    try:
        if queues.SEND_WEBHOOK not in current_app.tasks:
            current_app.loader.import_default_modules()
        current_app.tasks[queues.SEND_WEBHOOK].delay(bot_id, payload, delivery)
    except (BrokerError, OSError) as exc:
        log.warning("broker unavailable, webhook of bot %s not sent: %s", bot_id, exc)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is the answer, not followed: it could lead into the platform's network."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


def deliver(bot_id: int, payload: dict[str, Any], delivery: str, attempt: int) -> bool:
    """Make one attempt at the call, record it; True if it should be tried again (no answer,
    or a 5xx). A bot whose webhook was removed since is not called."""
    bot = Bot.objects.filter(pk=bot_id).values("webhook_url", "webhook_secret").first()
    if not bot or not bot["webhook_url"]:
        return False
    body = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
    status: int | None = None
    error = ""
    refused = False
    try:
        url = check_url(bot["webhook_url"])
        # check_url let only http(s) through.
        request = urllib.request.Request(  # noqa: S310
            url,
            data=body,
            method="POST",
            headers={
                "Content-Type": "application/json",
                "User-Agent": "Backroom-Webhook/1",
                SIGNATURE_HEADER: sign(bot["webhook_secret"], body),
                EVENT_HEADER: str(payload["event"]),
                DELIVERY_HEADER: delivery,
            },
        )
        with _OPENER.open(request, timeout=TIMEOUT_SECONDS) as response:
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except BadWebhook as exc:
        error, refused = str(exc), True
    except (OSError, ValueError) as exc:
        error = f"{type(exc).__name__}: {exc}"
    WebhookDelivery.objects.create(
        bot_id=bot_id,
        event=str(payload["event"])[:20],
        delivery=delivery,
        attempt=attempt,
        status_code=status,
        error=error[:300],
    )
    if refused:  # trying again would be refused again
        return False
    return status is None or status >= 500
