from django.apps import AppConfig


class ReplaysConfig(AppConfig):
    name = "replays"
    verbose_name = "Event store and replays"
    default_auto_field = "django.db.models.BigAutoField"
