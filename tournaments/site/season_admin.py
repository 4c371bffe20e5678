"""Staff run ladders and seasons from the admin: every action calls a service and reports in words."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from tournaments.competition import ladders, seasons
from tournaments.competition import selectors as competition_selectors
from tournaments.competition.models import Fixture, Ladder, Season, SeasonEntrant
from tournaments.play import services, visibility
from tournaments.rating import ladder_order
from tournaments.site.admin_base import DealsKeptAdmin


def _standings_table(rows: list[dict[str, Any]]) -> SafeString:
    if not rows:
        return format_html("<p>{}</p>", "No results yet.")
    body = format_html_join(
        "",
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{} to {}</td><td>{}</td></tr>",
        (
            (
                r["place"],
                r["name"],
                f"{r['elo']:.0f}",
                f"{r['low']:.0f}",
                f"{r['high']:.0f}",
                r["games"],
            )
            for r in rows
        ),
    )
    return format_html(
        "<table><tr><th>#</th><th>bot</th><th>Elo</th><th>95% interval</th><th>games</th></tr>{}</table>",
        body,
    )


@admin.register(Ladder)
class LadderAdmin(DealsKeptAdmin):
    list_display = ["name", "game", "seats", "is_active", "duplicate_deals", "created_at"]
    list_filter = ["game", "seats", "is_active"]
    readonly_fields = ["table"]
    actions = ["play_round"]

    @admin.display(description="ratings")
    def table(self, ladder: Ladder) -> SafeString:
        rows = ladders.ratings_of(ladder)
        return format_html_join(
            "",
            "<div>{}. {}: {} ± {} (Elo {}, {} games{})</div>",
            (
                (
                    n,
                    seasons.label(r.player),
                    f"{r.rating:.0f}",
                    f"{r.deviation:.0f}",
                    f"{r.elo:.0f}",
                    r.games,
                    ", provisional" if ladder_order.is_provisional(r.games) else "",
                )
                for n, r in enumerate(rows, 1)
            ),
        )

    @admin.action(description="Play a round now")
    def play_round(self, request: HttpRequest, queryset: QuerySet[Ladder]) -> None:
        count = sum(len(ladders.play_round(ladder)) for ladder in queryset)
        messages.info(request, f"{count} matches queued")


class EntrantInline(admin.TabularInline):  # type: ignore[type-arg]
    model = SeasonEntrant
    fields = ["bot_version", "builtin"]
    autocomplete_fields = ["bot_version"]
    extra = 0

    def _editable(self, obj: Season | None) -> bool:
        return obj is None or obj.state in (Season.State.DRAFT, Season.State.OPEN)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._editable(obj) and super().has_add_permission(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._editable(obj) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._editable(obj) and super().has_delete_permission(request, obj)


class FixtureInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Fixture
    fields = ["round", "table", "game_number", "players", "seed_once_over", "match_link", "status"]
    readonly_fields = [
        "round",
        "table",
        "game_number",
        "players",
        "seed_once_over",
        "match_link",
        "status",
    ]
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Fixture]:
        # Whether each fixture's deal is over, in the list's own query (a page lists hundreds).
        fixtures: QuerySet[Fixture] = super().get_queryset(request)
        return competition_selectors.with_deal_opened(fixtures)

    # The seed deals every card of the table's games: as secret as a match's (admin.MatchAdmin).
    @admin.display(description="seed")
    def seed_once_over(self, fixture: Fixture) -> int | str:
        return fixture.seed if getattr(fixture, "opened", False) else visibility.HIDDEN_UNTIL_OVER

    @admin.display(description="match")
    def match_link(self, fixture: Fixture) -> SafeString:
        if fixture.match_id is None:
            return format_html("{}", "not started")
        url = reverse("admin:tournaments_match_change", args=[fixture.match_id])
        return format_html('<a href="{}">{}</a>', url, fixture.match_id)

    @admin.display(description="status")
    def status(self, fixture: Fixture) -> str:
        return fixture.match.status if fixture.match is not None else "scheduled"


def _season_action(
    service: Callable[..., Any], description: str, done: str
) -> Callable[[Any, HttpRequest, QuerySet[Season]], None]:
    def action(modeladmin: Any, request: HttpRequest, queryset: QuerySet[Season]) -> None:
        for season in queryset:
            try:
                service(season=season)
            except services.Invalid as exc:
                messages.error(request, f"{season}: {exc}")
            else:
                messages.info(request, f"{season}: {done}")

    action.__name__ = service.__name__
    return admin.action(description=description)(action)


@admin.register(Season)
class SeasonAdmin(DealsKeptAdmin):
    list_display = ["name", "game", "seats", "format", "state", "progress", "starts_at"]
    list_filter = ["game", "state", "format"]
    search_fields = ["name"]
    readonly_fields = ["state", "progress", "standings_table", "started_at", "finished_at"]
    fields = [
        "name",
        "game",
        "seats",
        "options",
        "format",
        "rounds",
        "games_per_table",
        "starts_at",
        "matches_per_hour",
        "state",
        "progress",
        "standings_table",
        "started_at",
        "finished_at",
    ]
    inlines = [EntrantInline, FixtureInline]
    actions = [
        _season_action(seasons.open_season, "Open for entries", "open"),
        _season_action(
            seasons.start_season, "Start (freezes entrants, draws the schedule)", "running"
        ),
        _season_action(seasons.pause_season, "Pause", "paused"),
        _season_action(seasons.resume_season, "Resume", "running"),
        _season_action(seasons.finish_season, "Finish (freezes standings)", "finished"),
        _season_action(seasons.cancel_season, "Cancel", "cancelled"),
        _season_action(seasons.rerun_void, "Re-run void matches", "void matches queued again"),
        _season_action(seasons.recompute_standings, "Recompute standings", "standings recomputed"),
    ]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fixed = list(self.readonly_fields)
        if obj is not None and obj.state not in (Season.State.DRAFT, Season.State.OPEN):
            fixed += ["game", "seats", "options", "format", "rounds", "games_per_table"]
        return fixed

    @admin.display(description="progress (finished / scheduled)")
    def progress(self, season: Season) -> str:
        done, total = seasons.progress(season)
        return f"{done} / {total}"

    @admin.display(description="standings")
    def standings_table(self, season: Season) -> SafeString:
        rows = season.standings if season.standings is not None else seasons.standings(season)
        return _standings_table(rows)
