"""Named API tokens (``ApiToken``): made with a name and shown once, listed, revoked, and
checked on each request by the API's token authentication (tournaments/site/api/authentication.py).

A key reads ``br_<prefix>_<secret>``: the prefix finds the row, the SHA-256 of the whole key
must match the stored one. The account's original token (DRF's ``Token``, 40 hex digits) keeps
working beside them: nothing of it changes.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from games.sandbox.upload import unprintable
from tournaments.play.models import ApiToken
from tournaments.play.services import Invalid

KEY_START = "br_"
MAX_TOKENS = 20
"""Per account: enough for each machine and script, few enough to list on one page."""
USED_EVERY = timedelta(minutes=1)
"""``last_used_at`` is written at most this often per token: not one UPDATE per request."""


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def create_token(*, user: Any, name: str) -> tuple[ApiToken, str]:
    """A new named token and its key, which is not kept: the caller shows it once."""
    name = name.strip()
    if not name:
        raise Invalid({"name": "give the token a name (where it will be used)"})
    if len(name) > 60:
        raise Invalid({"name": "a token's name is at most 60 characters"})
    found = unprintable(name)
    if found:
        raise Invalid({"name": f"the name has a control or invisible character ({found})"})
    if ApiToken.objects.filter(user=user).count() >= MAX_TOKENS:
        raise Invalid({"name": f"you have {MAX_TOKENS} tokens already; revoke one first"})
    if ApiToken.objects.filter(user=user, name=name).exists():
        raise Invalid({"name": f"you already have a token called {name!r}"})
    prefix = secrets.token_hex(6)
    key = f"{KEY_START}{prefix}_{secrets.token_urlsafe(32)}"
    try:
        with transaction.atomic():
            token = ApiToken.objects.create(
                user=user, name=name, prefix=prefix, digest=_digest(key)
            )
    except IntegrityError:  # the same name at once (a 2**48 prefix collision reads the same)
        raise Invalid({"name": f"you already have a token called {name!r}"}) from None
    return token, key


def revoke_token(*, user: Any, token_id: int) -> bool:
    """Delete one of ``user``'s tokens; False if they have none with this id."""
    deleted, _ = ApiToken.objects.filter(user=user, pk=token_id).delete()
    return deleted > 0


def user_for(key: str) -> Any | None:
    """The active user a named key belongs to, or None; notes when the token was used."""
    if not key.startswith(KEY_START):
        return None
    prefix, _, secret = key[len(KEY_START) :].partition("_")
    if not prefix or not secret:
        return None
    token = ApiToken.objects.select_related("user").filter(prefix=prefix).first()
    if token is None or not hmac.compare_digest(token.digest, _digest(key)):
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= USED_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user if token.user.is_active else None
