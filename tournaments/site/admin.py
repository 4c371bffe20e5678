"""Staff tools: bots, versions, matches and their seats; re-queue or cancel matches.

Every action writes through play's services, which send any work through
tournaments/play/dispatch.py: the site never sends a task itself (a contract, pyproject.toml).
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from tournaments.play import selectors, services, visibility
from tournaments.play.models import Bot, BotLog, BotVersion, Match, Seat
from tournaments.site.admin_base import DealsKeptAdmin
from tournaments.site.templatetags.scores import score_text


class BotVersionInline(admin.TabularInline):  # type: ignore[type-arg]
    model = BotVersion
    fields = ("number", "filename", "size", "sha256", "status", "validation_error", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True


@admin.register(Bot)
class BotAdmin(DealsKeptAdmin):
    list_display = ["name", "game", "owner", "is_active", "is_public", "created_at"]
    list_filter = ["game", "is_active", "is_public"]
    search_fields = ["name", "owner__username"]
    inlines = [BotVersionInline]
    actions = ["disable_and_void"]
    # The webhook is its owner's (checked against SSRF by the services); the secret signs it.
    exclude = ["webhook_url", "webhook_secret"]

    @admin.action(description="Disable, and void their pending rated matches")
    def disable_and_void(self, request: HttpRequest, queryset: QuerySet[Bot]) -> None:
        for bot in queryset:
            services.deactivate_bot(bot=bot)
        messages.info(request, f"{queryset.count()} bots disabled; their queued matches are void")


@admin.register(BotVersion)
class BotVersionAdmin(DealsKeptAdmin):
    list_display = ["__str__", "status", "size", "created_at", "validated_at"]
    list_filter = ["status", "bot__game"]
    exclude = ["upload"]
    search_fields = ["bot__name", "bot__owner__username"]  # season entrants' autocomplete
    readonly_fields = ["bot", "number", "filename", "sha256", "size", "created_at", "validated_at"]

    @admin.action(description="Validate again (rejected or pending versions; ready ones stay)")
    def revalidate(self, request: HttpRequest, queryset: QuerySet[BotVersion]) -> None:
        sent = services.revalidate_versions(versions=queryset)
        messages.info(request, f"{sent} versions queued for validation")

    actions = ["revalidate"]


class SeatInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Seat
    fields = (
        "number",
        "bot_version",
        "builtin",
        "rank",
        "score_shown",
        "verdicts",
        "strikes",
        "disqualified",
        "time_used_once_over",
    )
    readonly_fields = fields
    extra = 0
    can_delete = False

    @admin.display(description="score")
    def score_shown(self, seat: Seat) -> str:
        return score_text(seat.score)

    # How long a bot thought is its owner's business, as its logs are: staff's once the deal is
    # over (visibility.log_seats).
    @admin.display(description="time used (ms)")
    def time_used_once_over(self, seat: Seat) -> int | str:
        if visibility.deal_over(seat.match):
            return seat.time_used_ms
        return visibility.HIDDEN_UNTIL_OVER


@admin.register(Match)
class MatchAdmin(DealsKeptAdmin):
    list_display = [
        "id",
        "game",
        "status",
        "rated",
        "season",
        "ladder",
        "attempts",
        "created_at",
        "finished_at",
    ]
    list_filter = ["game", "status", "rated", "season", "ladder"]
    # Staff see no hidden card before the end either (of the duplicate deal, if the match is one
    # of a set): the seed and the options deal them.
    exclude = ["seed", "options", "outcome"]
    # A match's status and result follow its events (the only source of truth), written by the
    # runner and the result trigger: an edit here could mark a running match finished and so
    # open every hidden card. Staff change matches through the actions, never by hand.
    readonly_fields = [
        "id",
        "game",
        "status",
        "rated",
        "created_by",
        "season",
        "ladder",
        "deal",  # leaving its deal would open a rotation while the rest of its set plays
        "forked_from",
        "forked_at",
        "seed_once_over",
        "options_once_over",
        "lease_owner",
        "lease_expires_at",
        "attempts",
        "last_version",
        "outcome_once_over",
        "error",
        "validation_of",
        "started_at",
        "finished_at",
        "created_at",
    ]
    inlines = [SeatInline]
    actions = ["requeue", "cancel"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # matches are created by challenges, ladders and seasons (services)

    @admin.display(description="seed")
    def seed_once_over(self, match: Match) -> int | str:
        return match.seed if visibility.deal_over(match) else visibility.HIDDEN_UNTIL_OVER

    @admin.display(description="outcome")
    def outcome_once_over(self, match: Match) -> object:
        return visibility.outcome_as_seen(match)

    @admin.display(description="options")
    def options_once_over(self, match: Match) -> object:
        return match.options if visibility.deal_over(match) else visibility.HIDDEN_UNTIL_OVER

    @admin.action(description="Re-queue (matches that are queued or whose lease expired)")
    def requeue(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        sent = services.requeue_matches(matches=queryset)
        messages.info(request, f"{sent} matches sent to the workers")

    @admin.action(description="Cancel (queued matches end aborted, never played)")
    def cancel(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        # A running match is its worker's to end; a waiting one, the clock's (the reaper).
        cancelled = services.cancel_queued_matches(matches=queryset, reason="by the staff")
        messages.info(request, f"{cancelled} queued matches cancelled")


@admin.register(BotLog)
class BotLogAdmin(DealsKeptAdmin):
    list_display = ["match", "seat", "version", "verdict"]
    search_fields = ["match__id"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[BotLog]:
        # Staff read logs once the deal is over: before, a line can quote the bot's hand, which
        # the other matches of a duplicate deal are still dealing.
        return selectors.logs_once_deal_over(super().get_queryset(request))


# Ladders and seasons live in tournaments/site/season_admin.py; imported here so they register.
from tournaments.site import season_admin  # noqa: E402, F401
