"""Staff run ladders and seasons from the admin: every action calls a service and reports in words."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.views.autocomplete import AutocompleteJsonView
from django.contrib.admin.widgets import AutocompleteSelect
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.forms.models import BaseInlineFormSet
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from games.engine.builtin import builtin_names
from tournaments.competition import ladders, seasons
from tournaments.competition import selectors as competition_selectors
from tournaments.competition.models import Fixture, Ladder, Season, SeasonEntrant
from tournaments.play import services, visibility
from tournaments.play.models import BotVersion
from tournaments.rating.ratings import is_provisional
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


class LadderForm(forms.ModelForm):  # type: ignore[type-arg]
    """A ladder's built-in bots are typed as a JSON list of names: a name the game has no bot
    of is refused here, naming those it has (the ladder would leave it out silently)."""

    class Meta:
        model = Ladder
        # Every field staff edit: the admin lays out the form's own fields.
        fields = [f.name for f in Ladder._meta.concrete_fields if f.editable and not f.primary_key]

    def clean(self) -> dict[str, Any]:
        cleaned: dict[str, Any] = super().clean() or {}
        game, names = cleaned.get("game"), cleaned.get("builtins")
        if game is None or names is None:
            return cleaned
        offered = builtin_names(game)
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            self.add_error("builtins", 'a list of names, e.g. ["random", "greedy"]')
        elif unknown := [n for n in names if n not in offered]:
            self.add_error(
                "builtins",
                f"{', '.join(unknown)}: not a built-in bot of {game};"
                f" its built-in bots are {', '.join(offered)}",
            )
        return cleaned


@admin.register(Ladder)
class LadderAdmin(DealsKeptAdmin):
    form = LadderForm
    list_display = ["name", "game", "seats", "is_active", "duplicate_deals", "created_at"]
    list_filter = ["game", "seats", "is_active"]
    readonly_fields = ["table"]
    actions = ["play_round"]

    @admin.display(description="ratings")
    def table(self, ladder: Ladder) -> SafeString:
        rows = competition_selectors.ratings_of(ladder)
        return format_html_join(
            "",
            "<div>{}. {}: {} ± {} (Elo {}, {} games{})</div>",
            (
                (
                    n,
                    competition_selectors.player_label(r.player),
                    f"{r.rating:.0f}",
                    f"{r.deviation:.0f}",
                    f"{r.elo:.0f}",
                    r.games,
                    ", provisional" if is_provisional(r.games) else "",
                )
                for n, r in enumerate(rows, 1)
            ),
        )

    @admin.action(description="Play a round now")
    def play_round(self, request: HttpRequest, queryset: QuerySet[Ladder]) -> None:
        count = sum(len(ladders.play_round(ladder)) for ladder in queryset)
        messages.info(request, f"{count} matches queued")


def entrant_label(version: BotVersion) -> str:
    """A version as staff pick it: two users' bots may share a name, so the owner is named."""
    return f"{version.bot.name} v{version.number} by {version.bot.owner.username}"


class EntrantVersions(AutocompleteJsonView):
    """The entrants' autocomplete: Django's, offering only the versions the season's game may
    enter (the form sends the game chosen, ``game``) and naming each one's owner."""

    def get_queryset(self) -> QuerySet[BotVersion]:
        found: QuerySet[BotVersion] = super().get_queryset()
        wanted = self.request.GET.get("game", "")
        return found.filter(seasons.may_enter(wanted)).select_related("bot__owner")

    def serialize_result(self, obj: Any, to_field_name: str) -> dict[str, str]:
        return {"id": str(getattr(obj, to_field_name)), "text": entrant_label(obj)}


ENTRANT_VERSIONS_URL = "admin:tournaments_season_entrant_versions"


class EntrantVersionSelect(AutocompleteSelect):
    """Django's autocomplete widget, asking EntrantVersions with the game the form shows
    (tournaments/static/site/entrant_autocomplete.js reads it as it is when the list opens)."""

    def get_url(self) -> str:
        return reverse(ENTRANT_VERSIONS_URL)

    def build_attrs(self, base_attrs: Any, extra_attrs: Any = None) -> dict[str, Any]:
        attrs: dict[str, Any] = super().build_attrs(base_attrs, extra_attrs)
        # Its own class: Django's script starts every "admin-autocomplete" without the game.
        attrs["class"] = attrs["class"].replace("admin-autocomplete", "entrant-autocomplete")
        return attrs

    @property
    def media(self) -> forms.Media:
        # After Django's own scripts, named here: the merge of media orders only what one list
        # orders (alone, the script came first, before jQuery).
        after = ("admin/js/jquery.init.js", "admin/js/autocomplete.js")
        return super().media + forms.Media(js=[*after, "site/entrant_autocomplete.js"])


class EntrantVersionField(forms.ModelChoiceField):  # type: ignore[type-arg]
    """An entrant's version, shown as the picker lists it (an entrant already saved, too)."""

    def label_from_instance(self, obj: Any) -> str:
        return entrant_label(obj)


class EntrantFormSet(BaseInlineFormSet):  # type: ignore[type-arg]
    """Each version entered must be one the season may enter, said in words (the form's game
    may have changed since the version was picked)."""

    def clean(self) -> None:
        super().clean()
        season: Season = self.instance
        for form in self.forms:
            version = form.cleaned_data.get("bot_version") if form.cleaned_data else None
            if version is None or form.cleaned_data.get("DELETE"):
                continue
            if version.bot.game != season.game:
                form.add_error(
                    "bot_version",
                    f"{entrant_label(version)} plays {version.bot.get_game_display()}, "
                    f"not {season.get_game_display()}",
                )
            elif not BotVersion.objects.filter(seasons.may_enter(None), pk=version.pk).exists():
                form.add_error(
                    "bot_version",
                    f"{entrant_label(version)} cannot enter: it is {version.status}"
                    + ("" if version.bot.is_active else ", and its bot is disabled"),
                )


class EntrantInline(admin.TabularInline):  # type: ignore[type-arg]
    model = SeasonEntrant
    fields = ["bot_version", "builtin"]
    formset = EntrantFormSet
    extra = 0

    def formfield_for_foreignkey(
        self, db_field: Any, request: HttpRequest, **kwargs: Any
    ) -> forms.ModelChoiceField[Any] | None:
        if db_field.name == "bot_version":
            kwargs["widget"] = EntrantVersionSelect(db_field, self.admin_site)
            kwargs["queryset"] = BotVersion.objects.select_related("bot__owner")
            kwargs["form_class"] = EntrantVersionField
        field: forms.ModelChoiceField[Any] | None = super().formfield_for_foreignkey(
            db_field, request, **kwargs
        )
        return field

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
            _run(request, season, service, done)

    action.__name__ = service.__name__
    return admin.action(description=description)(action)


@dataclass(frozen=True)
class Move:
    """A state change staff make with a button on the season's own page."""

    name: str
    service: Callable[..., Any]
    label: str
    done: str
    when: frozenset[str]
    """The states it is offered in (seasons.TRANSITIONS allows it from each)."""


State = Season.State
MOVES = [
    Move("open", seasons.open_season, "Open for entries", "open", frozenset({State.DRAFT})),
    Move(
        "start",
        seasons.start_season,
        "Start (freezes entrants, draws the schedule)",
        "running",
        frozenset({State.OPEN}),
    ),
    Move("pause", seasons.pause_season, "Pause", "paused", frozenset({State.RUNNING})),
    Move("resume", seasons.resume_season, "Resume", "running", frozenset({State.PAUSED})),
    Move(
        "finish",
        seasons.finish_season,
        "Finish (freezes standings)",
        "finished",
        frozenset({State.RUNNING, State.PAUSED}),
    ),
]


def _run(request: HttpRequest, season: Season, service: Callable[..., Any], done: str) -> None:
    """One state change, reported in words as the list's actions report it."""
    try:
        service(season=season)
    except services.Invalid as exc:
        messages.error(request, f"{season}: {exc}")
    else:
        messages.info(request, f"{season}: {done}")


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
        *(_season_action(m.service, m.label, m.done) for m in MOVES),
        _season_action(seasons.cancel_season, "Cancel", "cancelled"),
        _season_action(seasons.rerun_void, "Re-run void matches", "void matches queued again"),
        _season_action(seasons.recompute_standings, "Recompute standings", "standings recomputed"),
    ]

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                "entrant-versions/",
                self.admin_site.admin_view(EntrantVersions.as_view(admin_site=self.admin_site)),
                name="tournaments_season_entrant_versions",
            ),
            path(
                "<int:pk>/move/<str:name>/",
                self.admin_site.admin_view(self.move_view),
                name="tournaments_season_move",
            ),
        ]
        return own + super().get_urls()

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        """The season's page, with a button for each state change its state allows."""
        season = self.get_object(request, object_id)
        moves = []
        if season is not None and self.has_change_permission(request, season):
            moves = [
                {
                    "label": m.label,
                    "url": reverse("admin:tournaments_season_move", args=[season.pk, m.name]),
                }
                for m in MOVES
                if season.state in m.when
            ]
        context = {**(extra_context or {}), "season_moves": moves}
        return super().change_view(request, object_id, form_url, context)

    def move_view(self, request: HttpRequest, pk: int, name: str) -> HttpResponse:
        """A button of the season's page: the move, reported, then the page again."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        season = get_object_or_404(Season, pk=pk)
        move = next((m for m in MOVES if m.name == name), None)
        if move is None or not self.has_change_permission(request, season):
            raise PermissionDenied
        _run(request, season, move.service, move.done)
        return HttpResponseRedirect(reverse("admin:tournaments_season_change", args=[season.pk]))

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fixed = list(self.readonly_fields)
        if obj is not None and obj.state not in (Season.State.DRAFT, Season.State.OPEN):
            fixed += ["game", "seats", "options", "format", "rounds", "games_per_table"]
        return fixed

    @admin.display(description="progress (finished / scheduled)")
    def progress(self, season: Season) -> str:
        done, total = competition_selectors.fixtures_done(season)
        return f"{done} / {total}"

    @admin.display(description="standings")
    def standings_table(self, season: Season) -> SafeString:
        rows = (
            season.standings
            if season.standings is not None
            else competition_selectors.fitted_standings(season)
        )
        return _standings_table(rows)
