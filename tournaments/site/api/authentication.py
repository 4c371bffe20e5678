"""The API's token authentication: the account's original token (DRF's) and its named tokens
(tournaments/play/tokens.py), both sent as ``Authorization: Token <key>``."""

from __future__ import annotations

from typing import Any

from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

from config import replica
from tournaments.play import services, tokens
from tournaments.site.api import token_cache


class NamedTokenAuthentication(TokenAuthentication):
    """A named key (``br_...``) is looked up by its prefix; any other key is DRF's token, as
    before, so existing clients keep working. One class for both: DRF stops at the first
    authentication that refuses a ``Token`` header, so two classes would refuse each other's.

    A key that worked a moment ago is answered from the token cache (``token_cache``), which a
    revocation or an account's change retires at once."""

    def authenticate_credentials(self, key: str) -> tuple[Any, None]:
        generation, user = token_cache.cached_user(key)
        if user is not None:
            return user, None
        # From the primary even in a request the replica serves: a token made a moment ago is
        # used at once (often by another client, the CLI), and a revoked one is refused at once.
        with replica.on_primary():
            user = self._look_up(key)
        token_cache.keep(key, generation, user)
        return user, None

    def _look_up(self, key: str) -> Any:
        if not key.startswith(tokens.KEY_START):
            user, _ = super().authenticate_credentials(key)
            return user
        user = services.user_for_token(key=key)
        if user is None:
            raise AuthenticationFailed("Invalid token.")
        return user
