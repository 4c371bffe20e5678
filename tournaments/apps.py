from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Bots, matches and tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Django's autodiscovery imports `<app>.admin`; the site's admin lives in the site context.
        from tournaments.site import admin  # noqa: F401
