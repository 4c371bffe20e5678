"""Top-level URLs: the admin, the API and its schema."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from tournaments.site.health import health
from tournaments.site.pages.login import limit_logins, limit_password_guesses

handler400 = "tournaments.site.pages.errors.bad_request"
# A database outage is a 503 with Retry-After; any other uncaught error Django's own 500.
handler500 = "tournaments.site.pages.errors.server_error"

urlpatterns = [
    # The admin's login, rate-limited like the site's (it resolves before the admin's own).
    path("admin/login/", limit_logins(admin.site.login), name="admin-login"),
    # The admin's password form (staff only, as the admin's own route): a wrong old password
    # on the account's budget, as the site's form.
    path(
        "admin/password_change/",
        admin.site.admin_view(limit_password_guesses(admin.site.password_change)),
        name="admin-password-change",
    ),
    path("admin/", admin.site.urls),
    # For load balancers and monitoring, open: the database answers; the replica's lag.
    path("health/", health, name="health"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves Swagger UI's start-up script as a file: the CSP allows no inline script.
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(
            url_name="schema", template_name="site/swagger_ui.html"
        ),
        name="api-docs",
    ),
    path("api/", include("tournaments.site.api.urls")),
    path("", include("tournaments.site.pages.urls")),
]
