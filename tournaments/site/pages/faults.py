"""A bot's errors page (``/bots/<id>/errors/``): every non-ok verdict of its versions, grouped
by kind, each linked to its step in the viewer; for its owner, the webhook's form, secret and
deliveries (the form posts to ``webhook``, which changes the bot through the services)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_safe

from tournaments.play import selectors, services, visibility
from tournaments.site.api.fault_serializers import FAULT_VERDICTS, viewer_link
from tournaments.site.pages.errors import BadQuery
from tournaments.site.pages.form_posts import form_on

if TYPE_CHECKING:
    from tournaments.play.models import Bot

PAGE_SIZE = 50


def _rows(request: HttpRequest, bot: Bot, faults: Any) -> list[dict[str, Any]]:
    rows = []
    for fault in faults:
        shown = visibility.may_read_fault_detail(request.user, bot, fault.match)
        rows.append(
            {
                "fault": fault,
                "detail": fault.detail if shown else None,
                "link": viewer_link(fault, shown),
            }
        )
    return rows


def _page(
    request: HttpRequest, bot: Bot, webhook_error: str = "", status: int = 200
) -> HttpResponse:
    kind = request.GET.get("kind") or None
    if kind is not None and kind not in FAULT_VERDICTS:
        raise BadQuery(f"kind must be one of {', '.join(FAULT_VERDICTS)}, not {kind[:40]!r}")
    faults = selectors.bot_faults(request.user, bot, verdict=kind)
    page = Paginator(faults, PAGE_SIZE).get_page(request.GET.get("page"))
    owner = request.user.is_authenticated and request.user.pk == bot.owner_id
    return render(
        request,
        "site/bot_errors.html",
        {
            "bot": bot,
            "kind": kind,
            "counts": selectors.bot_fault_counts(request.user, bot),
            "page": page,
            "rows": _rows(request, bot, page.object_list),
            "query": f"kind={kind}" if kind else "",
            "owner": owner,
            "deliveries": selectors.webhook_deliveries(bot) if owner else [],
            "webhook_error": webhook_error,
        },
        status=status,
    )


@require_safe
def bot_errors(request: HttpRequest, bot_id: int) -> HttpResponse:
    bot: Bot = get_object_or_404(selectors.bots_visible_to(request.user), pk=bot_id)
    return _page(request, bot)


@form_on("site-bot-errors", "bot_id", anchor="webhook")
def webhook(request: HttpRequest, bot_id: int) -> HttpResponse:
    """Set (or, empty, remove) the bot's webhook URL: its owner only (anyone else: 404)."""
    bot: Bot = get_object_or_404(selectors.bots_owned_by(request.user), pk=bot_id)
    if bot.owner_id != request.user.pk:  # staff see every bot, but the webhook is the owner's
        return HttpResponse("only the bot's owner sets its webhook", status=403)
    url = request.POST.get("webhook_url", "").strip()
    try:
        services.update_bot(bot=bot, webhook_url=url)
    except services.Invalid as exc:
        message = " ".join(m for messages in exc.errors.values() for m in messages)
        return _page(request, bot, webhook_error=message, status=400)
    return redirect("site-bot-errors", bot_id=bot.pk)
