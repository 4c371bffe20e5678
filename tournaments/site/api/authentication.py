"""The API's token authentication: the account's original token (DRF's) and its named tokens
(tournaments/play/tokens.py), both sent as ``Authorization: Token <key>``."""

from __future__ import annotations

from typing import Any

from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

from config import replica
from tournaments.play import tokens


class NamedTokenAuthentication(TokenAuthentication):
    """A named key (``br_...``) is looked up by its prefix; any other key is DRF's token, as
    before, so existing clients keep working. One class for both: DRF stops at the first
    authentication that refuses a ``Token`` header, so two classes would refuse each other's."""

    def authenticate_credentials(self, key: str) -> tuple[Any, None]:
        # From the primary even in a request the replica serves: a token made a moment ago is
        # used at once (often by another client, the CLI), and a revoked one is refused at once.
        with replica.on_primary():
            return self._credentials(key)

    def _credentials(self, key: str) -> tuple[Any, None]:
        if not key.startswith(tokens.KEY_START):
            user, token = super().authenticate_credentials(key)
            return user, token
        user = tokens.user_for(key)
        if user is None:
            raise AuthenticationFailed("Invalid token.")
        return user, None
