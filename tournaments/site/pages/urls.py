"""The site's pages, mounted at the root."""

from django.contrib.auth import views as auth_views
from django.urls import URLPattern, path

from tournaments.site.pages import accounts, challenge, faults, login, my_bots, series, views

urlpatterns: list[URLPattern] = [
    path("", views.home, name="site-home"),
    # Bot owners (not only staff) log in here; the admin's login stays staff-only.
    # Rate-limited per client address, with the API's token requests (tournaments/site/api/throttles.py).
    path("accounts/login/", login.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    # Sign-up counts with POST /api/accounts/ (one per-address budget); tokens are named ones.
    path("accounts/signup/", accounts.signup, name="site-signup"),
    path("accounts/", accounts.account, name="site-account"),
    path("accounts/password/", accounts.PasswordChangeView.as_view(), name="site-password"),
    path("accounts/tokens/", accounts.token_create, name="site-token-create"),
    path("accounts/tokens/<int:token_id>/revoke/", accounts.token_revoke, name="site-token-revoke"),
    path("bots/mine/", my_bots.my_bots, name="site-my-bots"),
    path("bots/new/", my_bots.bot_new, name="site-bot-new"),
    path("bots/<int:bot_id>/manage/", my_bots.bot_manage, name="site-bot-manage"),
    path("bots/<int:bot_id>/upload/", my_bots.bot_upload, name="site-bot-upload"),
    path("bots/<int:bot_id>/activate/", my_bots.bot_activate, name="site-bot-activate"),
    path("matches/", views.match_list, name="site-matches"),
    # Made by the API's challenge service, on the API's challenge budget.
    path("challenge/", challenge.challenge_page, name="site-challenge"),
    path("matches/<uuid:match_id>/", views.match_page, name="site-match"),
    path("matches/<uuid:match_id>/board/", views.match_board, name="site-match-board"),
    path("matches/<uuid:match_id>/log/", views.match_log, name="site-match-log"),
    path("matches/<uuid:match_id>/play/", views.match_play, name="site-match-play"),
    path("matches/<uuid:match_id>/act/<int:seat>/", views.act_download, name="site-act"),
    path("bots/<int:bot_id>/", views.bot_page, name="site-bot"),
    path("bots/<int:bot_id>/errors/", faults.bot_errors, name="site-bot-errors"),
    path("bots/<int:bot_id>/webhook/", faults.webhook, name="site-bot-webhook"),
    path("docs/<slug:name>/", views.doc_page, name="site-doc"),
    path("ladders/<int:pk>/", views.competition_page, {"kind": "ladder"}, name="site-ladder"),
    path("seasons/", views.seasons_page, name="site-seasons"),
    path("seasons/<int:pk>/", views.competition_page, {"kind": "season"}, name="site-season"),
    path("series/", series.series_list, name="site-series-list"),
    path("series/<int:pk>/", series.series_page, name="site-series"),
    path("series/<int:pk>/cancel/", series.series_cancel, name="site-series-cancel"),
]
