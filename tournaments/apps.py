from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Bots, matches and tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Django's autodiscovery imports `<app>.admin`; the site's admin lives in the site context.
        # A duplicate deal plays on while a fixture of it may still be played: play's visibility
        # asks competition without importing it (tournaments.play.visibility.DEAL_PLAYS_ON).
        # Ratings follow the event store's feed, woken by each stored result.
        from replays import store
        from tournaments.competition.selectors import fixture_to_play
        from tournaments.play import visibility
        from tournaments.rating import wake
        from tournaments.site import admin, page_cache, token_lists  # noqa: F401
        from tournaments.site.api import token_cache

        if fixture_to_play not in visibility.DEAL_PLAYS_ON:
            visibility.DEAL_PLAYS_ON.append(fixture_to_play)
        store.stored.connect(wake.on_stored, dispatch_uid="ratings follow results")
        # Anonymous pages kept in the cache are retired by every write that can hide something.
        page_cache.connect()
        page_cache.connect_forks()
        # A token's match list shares anonymous's unless its own would differ.
        token_lists.connect()
        # API tokens kept in the cache are retired by a revocation or an account's change.
        token_cache.connect()
