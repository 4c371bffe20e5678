from typing import Any

from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Bots, matches and tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Django's autodiscovery imports `<app>.admin`; the site's admin lives in the site context.
        # A duplicate deal plays on while a fixture of it may still be played: play's visibility
        # asks competition without importing it (tournaments.play.selectors.sights.DEAL_PLAYS_ON).
        # Ratings follow the event store's feed, woken by each stored result.
        from replays import store
        from tournaments.competition.selectors import fixture_to_play
        from tournaments.play import visibility
        from tournaments.play.selectors import sights
        from tournaments.rating import wake
        from tournaments.site import admin  # noqa: F401

        if fixture_to_play not in sights.DEAL_PLAYS_ON:
            sights.DEAL_PLAYS_ON.append(fixture_to_play)
        # Who-sees-what's rules read through play's selectors, which import the rules.
        visibility.READS.deal_playing = sights.deal_playing
        visibility.READS.seats_played_by = sights.seats_played_by
        store.stored.connect(wake.on_stored, dispatch_uid="ratings follow results")
        connect_site_caches()


def connect_site_caches() -> None:
    """The site's caches are retired by writes to play's rows: wired here, where the models are
    registered, so that the site's modules import no model (pyproject.toml, "views read through
    selectors and write through services")."""
    from django.contrib.auth import get_user_model
    from django.db.models import Model
    from django.db.models.signals import post_delete, post_save
    from rest_framework.authtoken.models import Token

    from tournaments.play import row_changes
    from tournaments.play.models import ApiToken, Bot, BotVersion, Match, Seat
    from tournaments.site import page_cache, token_lists
    from tournaments.site.api import token_cache

    accounts: Any = get_user_model()
    # Anonymous pages kept in the cache (page_cache) are retired by every write that can hide
    # what they show: a change of a bot's ``BOT_SHOWN`` or an account's ``ACCOUNT_SHOWN`` columns
    # (compared with the row before the save, row_changes), and the deletion of a bot, a version,
    # a match, a seat or an account. Any other save leaves the entries be: one account's edits of
    # its own bots would otherwise empty every visitor's cache. Match and seat saves (statuses,
    # results) are left to the expiry: they reveal, never hide. A fork retires them too: the
    # original's kept viewer page lists its forks.
    row_changes.watch(Bot, page_cache.BOT_SHOWN, page_cache.hidden_changed, "page cache")
    row_changes.watch(accounts, page_cache.ACCOUNT_SHOWN, page_cache.hidden_changed, "page cache")
    deleted: list[type[Model]] = [Bot, BotVersion, Match, Seat, accounts]
    for model in deleted:
        post_delete.connect(
            page_cache.hidden_changed,
            sender=model,
            dispatch_uid=f"page cache: {model.__name__} deleted",
        )
    post_save.connect(page_cache.forked, sender=Match, dispatch_uid="page cache: a match forked")
    # A token's match list shares anonymous's unless its own would differ: a new smoke match is
    # its owner's own.
    post_save.connect(
        token_lists.smoke_made, sender=Match, dispatch_uid="token lists: a smoke match made"
    )
    # API tokens kept in the cache (token_cache) are retired when a token is deleted, or an
    # account changed or deleted.
    for model in (Token, ApiToken, accounts):
        post_delete.connect(
            token_cache.tokens_changed,
            sender=model,
            dispatch_uid=f"token cache: {model.__name__} deleted",
        )
    row_changes.watch(
        accounts, token_cache.ACCOUNT_CHANGES, token_cache.tokens_changed, "token cache"
    )
