"""The REST API's routes, mounted under /api/."""

from django.urls import URLPattern, URLResolver, include, path, re_path
from rest_framework.routers import DefaultRouter

from tournaments.site.api import exceptions as api_exceptions
from tournaments.site.api import faults, replay, views

router = DefaultRouter()
router.register("bots", views.BotViewSet, basename="bot")

urlpatterns: list[URLPattern | URLResolver] = [
    path("accounts/", views.AccountCreateView.as_view(), name="account-create"),
    path("accounts/token/", views.TokenView.as_view(), name="account-token"),
    path("accounts/me/", views.MeView.as_view(), name="account-me"),
    path("bots/<int:bot_id>/versions/", views.BotVersionListView.as_view(), name="bot-versions"),
    path(
        "bots/<int:bot_id>/versions/<int:number>/",
        views.BotVersionDetailView.as_view(),
        name="bot-version-detail",
    ),
    path(
        "bots/<int:bot_id>/versions/<int:number>/source/",
        views.BotVersionSourceView.as_view(),
        name="bot-version-source",
    ),
    path("bots/<int:bot_id>/errors/", faults.BotErrorsView.as_view(), name="bot-errors"),
    path("matches/", views.MatchListView.as_view(), name="match-list"),
    path("matches/<uuid:match_id>/", views.MatchDetailView.as_view(), name="match-detail"),
    path("matches/<uuid:match_id>/events/", views.MatchEventsView.as_view(), name="match-events"),
    path("matches/<uuid:match_id>/logs/", views.MatchLogsView.as_view(), name="match-logs"),
    path(
        "matches/<uuid:match_id>/actions/", views.MatchActionsView.as_view(), name="match-actions"
    ),
    path("", include(router.urls)),
]

# Replays: state at a step, download, fork (tournaments/site/api/replay.py).
urlpatterns += [
    path("matches/<uuid:match_id>/state/", replay.MatchStateView.as_view(), name="match-state"),
    path(
        "matches/<uuid:match_id>/download/",
        replay.MatchDownloadView.as_view(),
        name="match-download",
    ),
    path("matches/<uuid:match_id>/fork/", replay.MatchForkView.as_view(), name="match-fork"),
]

# Ladders and seasons (read-only): views in their own modules.
from tournaments.site.api import ladders as ladder_views  # noqa: E402
from tournaments.site.api import seasons as season_views  # noqa: E402

urlpatterns += [
    path("ladders/", ladder_views.LadderListView.as_view(), name="ladder-list"),
    path("ladders/<int:ladder_id>/", ladder_views.LadderDetailView.as_view(), name="ladder-detail"),
    path(
        "ladders/<int:ladder_id>/ratings/",
        ladder_views.LadderRatingsView.as_view(),
        name="ladder-ratings",
    ),
    path(
        "ladders/<int:ladder_id>/history/",
        ladder_views.LadderHistoryView.as_view(),
        name="ladder-history",
    ),
    path("seasons/", season_views.SeasonListView.as_view(), name="season-list"),
    path("seasons/<int:season_id>/", season_views.SeasonDetailView.as_view(), name="season-detail"),
    path(
        "seasons/<int:season_id>/schedule/",
        season_views.SeasonScheduleView.as_view(),
        name="season-schedule",
    ),
]

# Series and A/B tests (tournaments/site/api/series.py).
from tournaments.site.api import series as series_views  # noqa: E402

urlpatterns += [
    path("series/", series_views.SeriesListView.as_view(), name="series-list"),
    path("series/<int:series_id>/", series_views.SeriesDetailView.as_view(), name="series-detail"),
    path(
        "series/<int:series_id>/cancel/",
        series_views.SeriesCancelView.as_view(),
        name="series-cancel",
    ),
]

# Last: any other URL under /api/ is the API's JSON 404 (as the schema documents), with DEBUG too.
urlpatterns += [re_path(r"^(?P<rest>[\s\S]*)$", api_exceptions.not_found, name="api-not-found")]
