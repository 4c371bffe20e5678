"""The REST API's routes, mounted under /api/."""

from django.urls import URLPattern, URLResolver, include, path
from rest_framework.routers import DefaultRouter

from tournaments.api import replay, views

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
    path("matches/", views.MatchListView.as_view(), name="match-list"),
    path("matches/<uuid:match_id>/", views.MatchDetailView.as_view(), name="match-detail"),
    path("matches/<uuid:match_id>/events/", views.MatchEventsView.as_view(), name="match-events"),
    path("matches/<uuid:match_id>/logs/", views.MatchLogsView.as_view(), name="match-logs"),
    path("", include(router.urls)),
]

# Replays: state at a step, download, fork (tournaments/api/replay.py).
urlpatterns += [
    path("matches/<uuid:match_id>/state/", replay.MatchStateView.as_view(), name="match-state"),
    path(
        "matches/<uuid:match_id>/download/",
        replay.MatchDownloadView.as_view(),
        name="match-download",
    ),
    path("matches/<uuid:match_id>/fork/", replay.MatchForkView.as_view(), name="match-fork"),
]
