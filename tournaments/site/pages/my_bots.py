"""An author's own bots on the site: the list, a new bot, and each bot's own page to upload a
version (a file, or source pasted in the editor), follow its validation, activate a version,
make it public or private and edit its description.

Every write takes the API's shape (its serializers) and its service, and the API's budgets, the
same counters: uploads ``UploadThrottle``, a bot made public or private ``VisibilityThrottle``.
The site refuses exactly what the API refuses, with the same messages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_http_methods

from games.engine.registry import GAMES
from games.sandbox.upload import MAX_PY_BYTES, MAX_ZIP_BYTES
from tournaments.play import selectors, services
from tournaments.rating import selectors as rating_selectors
from tournaments.site import page_cache
from tournaments.site.api import body_limits
from tournaments.site.api import serializers as s
from tournaments.site.api.file_names import record_sent_names
from tournaments.site.api.throttles import (
    UploadThrottle,
    VisibilityThrottle,
    charge_accepted,
    too_many,
    write_allowed,
)
from tournaments.site.api.views import MAX_UPLOAD_REQUEST_BYTES
from tournaments.site.pages import budgets
from tournaments.site.pages.accounts import Errors, field_errors
from tournaments.site.pages.form_posts import form_on

if TYPE_CHECKING:
    from tournaments.play.models import Bot

STARTER = (
    "def act(observation, legal):\n"
    "    # legal['actions']: the small decisions, enumerated; docs/bots.md has the rest\n"
    "    if legal['actions']:\n"
    "        return legal['actions'][0]\n"
    "    if 'bid' in (legal['space'] or {}):\n"
    "        return {'bid': legal['space']['bid']['min']}\n"
    "    return {'place': []}\n"
)
"""What the editor holds for a bot's first version: a bot that plays either game legally."""


def _games() -> list[tuple[str, str]]:
    return [(info.name, info.title) for info in GAMES.values()]


@login_required
@require_http_methods(["GET", "HEAD"])
def my_bots(request: HttpRequest) -> HttpResponse:
    bots = list(selectors.bots_of(request.user))
    ratings = rating_selectors.ladder_ratings_of_bots([b.pk for b in bots])
    errors = selectors.recent_errors_of([b.pk for b in bots])
    rows = [
        {"bot": bot, "ratings": ratings.get(bot.pk, []), "errors": sum(errors[bot.pk].values())}
        for bot in bots
    ]
    return render(request, "site/my_bots.html", {"rows": rows, "recent": selectors.RECENT_SEATS})


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def bot_new(request: HttpRequest) -> HttpResponse:
    values: dict[str, Any] = {"game": "", "name": "", "description": "", "is_public": True}
    errors: Errors = {}
    if request.method == "POST":
        # An unticked box sends nothing: here that means private, as the form shows it.
        values = {
            "game": request.POST.get("game", ""),
            "name": request.POST.get("name", ""),
            "description": request.POST.get("description", ""),
            "is_public": "is_public" in request.POST,
        }
        shape = s.BotCreateSerializer(data=values)
        if not shape.is_valid():
            errors = field_errors(shape.errors)
        else:
            v = shape.validated_data
            try:
                bot = services.create_bot(
                    owner=request.user,
                    game=v["game"],
                    name=v["name"],
                    description=v["description"],
                    is_public=v["is_public"],
                )
            except services.Invalid as exc:
                errors = field_errors(exc.errors)
            else:
                messages.success(request, f"{bot.name} is made: upload its first version.")
                return redirect("site-bot-manage", bot_id=bot.pk)
    return render(
        request,
        "site/bot_new.html",
        {"values": values, "errors": errors, "games": _games()},
        status=400 if errors else 200,
    )


def _editor_start(bot: Bot, has_versions: bool) -> str:
    if not has_versions:
        return STARTER
    return selectors.newest_source(bot) or ""


def _own(request: HttpRequest, bot_id: int) -> Bot:
    """One of the user's own bots; another's (private or not) is a 404, as if absent."""
    bot = selectors.own_bot(request.user, bot_id)
    if bot is None:
        raise Http404("you have no such bot")
    return bot


def _manage(
    request: HttpRequest,
    bot: Bot,
    *,
    status: int = 200,
    errors: Errors | None = None,
    source: str | None = None,
    settings: dict[str, Any] | None = None,
) -> HttpResponse:
    versions = list(selectors.own_versions(bot))
    return render(
        request,
        "site/bot_manage.html",
        {
            "bot": bot,
            "versions": versions,
            "errors": errors or {},
            # What was sent if refused (nothing lost); else the newest version's text to edit.
            "source": source if source is not None else _editor_start(bot, bool(versions)),
            "settings": settings or {"description": bot.description, "is_public": bot.is_public},
            "recent_errors": selectors.recent_errors(bot),
            "recent": selectors.RECENT_SEATS,
            "versions_url": reverse("bot-versions", kwargs={"bot_id": bot.pk}),
            "max_py": MAX_PY_BYTES,
            "max_zip": MAX_ZIP_BYTES,
        },
        status=status,
    )


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def bot_manage(request: HttpRequest, bot_id: int) -> HttpResponse:
    """The bot's own page; a POST changes its description and whether it is public."""
    bot = _own(request, bot_id)
    if request.method != "POST":
        return _manage(request, bot)
    changes = {
        "description": request.POST.get("description", ""),
        "is_public": "is_public" in request.POST,
    }
    shape = s.BotSerializer(bot, data=changes, partial=True)
    if not shape.is_valid():
        return _manage(
            request, bot, status=400, errors=field_errors(shape.errors), settings=changes
        )
    # Made private or public again: every cached page is retired, so it is counted on the
    # account's ``visibility`` budget, the API's own counter. A description alone is not.
    throttle = VisibilityThrottle()
    if page_cache.changes_shown(bot, shape.validated_data) and not write_allowed(throttle, request):
        errors = {"form": [budgets.message(budgets.VISIBILITY, throttle)]}
        return budgets.refused(_manage(request, bot, errors=errors, settings=changes), throttle)
    try:
        services.update_bot(bot=bot, **shape.validated_data)
    except services.Invalid as exc:
        return _manage(request, bot, status=400, errors=field_errors(exc.errors), settings=changes)
    charge_accepted(request)
    shown = "public" if bot.is_public else "private"
    messages.success(request, f"Saved: {bot.name} is {shown}.")
    return redirect("site-bot-manage", bot_id=bot.pk)


@login_required
@form_on("site-bot-manage", "bot_id", anchor="upload")
@csrf_exempt  # checked below, once the file names are being recorded (Django's own recipe)
def bot_upload(request: HttpRequest, bot_id: int) -> HttpResponse:
    """A version from a file (multipart ``file``) or from the editor (``source``)."""
    bot = _own(request, bot_id)
    length = body_limits.content_length(request)
    if length > MAX_UPLOAD_REQUEST_BYTES:  # refused unparsed, as the API refuses it
        return _too_large(request, bot, length)
    # Before the body is parsed (the CSRF check parses it): a name longer than Django keeps
    # is refused as the API refuses it, not cut.
    sent = record_sent_names(request)
    return _upload(request, bot, sent)


DRAIN_BYTES = 4 * MAX_UPLOAD_REQUEST_BYTES
"""The most of a refused body read (and dropped) so that its page reaches the browser whole."""


def _too_large(request: HttpRequest, bot: Bot, length: int) -> HttpResponse:
    """The manage page with the limit in bytes, beside the form that sent the body.

    The body is not parsed, but read and dropped up to DRAIN_BYTES: a server that closes a
    connection with unread bytes in it resets it, and the browser may lose the page
    (an incomplete read). A Connection header is no help: WSGI servers drop it (gunicorn) or
    refuse it (wsgiref). A larger body is left unread, and its page may be lost with it.
    """
    if request.content_type == "multipart/form-data":
        what = f"an upload ({MAX_PY_BYTES} bytes for a .py, {MAX_ZIP_BYTES} for a .zip)"
        detail = body_limits.too_large(length, MAX_UPLOAD_REQUEST_BYTES, what)
        field = "file"
    else:  # the editor's form
        detail = (
            f"the request body is {length} bytes; pasted source may be at most {MAX_PY_BYTES}"
            " bytes (as a .py upload)"
        )
        field = "source"
    if length <= DRAIN_BYTES:
        while request.read(64 * 1024):
            pass
    return _manage(request, bot, status=413, errors={field: [detail]})


@csrf_protect
def _upload(request: HttpRequest, bot: Bot, sent: dict[str, str]) -> HttpResponse:
    throttle = UploadThrottle()
    if not write_allowed(throttle, request):
        return too_many(throttle)
    data: dict[str, Any] = {}
    source = request.POST.get("source")
    if source is not None:
        # A browser sends a textarea's lines with CRLF: stored as the author's LF text.
        data["source"] = source.replace("\r\n", "\n")
        data["filename"] = request.POST.get("filename") or "bot.py"
    elif "file" in request.FILES:
        data["file"] = request.FILES["file"]
    shape = s.VersionUploadSerializer(data=data, context={"sent_names": sent})
    if not shape.is_valid():
        return _manage(request, bot, status=400, errors=field_errors(shape.errors), source=source)
    try:
        version, created = services.upload_version(bot=bot, **shape.validated_data)
    except services.Invalid as exc:
        return _manage(request, bot, status=400, errors=field_errors(exc.errors), source=source)
    charge_accepted(request)
    if created:
        messages.success(request, f"v{version.number} is uploaded: validation runs now.")
    else:
        messages.info(request, f"v{version.number} already has this file: nothing new to check.")
    return redirect(reverse("site-bot-manage", kwargs={"bot_id": bot.pk}) + "#versions")


@login_required
@form_on("site-bot-manage", "bot_id", anchor="versions")
def bot_activate(request: HttpRequest, bot_id: int) -> HttpResponse:
    bot = _own(request, bot_id)
    number = request.POST.get("number", "")
    if not (number.isascii() and number.isdigit()) or len(number) > 9:
        return _manage(
            request, bot, status=400, errors={"version": [f"no version {number[:20]!r}"]}
        )
    try:
        services.activate_version(bot=bot, number=int(number))
    except services.Invalid as exc:
        return _manage(request, bot, status=400, errors=field_errors(exc.errors))
    messages.success(request, f"Ladders now play v{number} of {bot.name}.")
    return redirect(reverse("site-bot-manage", kwargs={"bot_id": bot.pk}) + "#versions")
