"""Who an API token belongs to, kept a few seconds in the cache (Redis).

Every API request that sends ``Authorization: Token <key>`` looked its key up in Postgres (DRF's
token, or a named token's prefix and digest) with the user joined: a query, and the ORM building
it, on every read a script makes (docs/scaling.md, Web cost). The answer is kept
``settings.TOKEN_CACHE_SECONDS`` (30 s by default; 0 turns this off) under the SHA-256 of the key,
never the key itself.

What is kept is the account's id, name and flags, not its row: no password hash is copied into
Redis, and a field not kept (an e-mail, the password) is read from Postgres if anything asks.

**A revoked token stops working on the very next request.** Every entry is stored with the
*token generation* it was read under, read in the same round trip, and every write that can make
a key stop working or change whose it is sets a new generation once it commits
(``tokens_changed``, connected in tournaments/apps.py): a token deleted (revoked, or DRF's
replaced), an account saved with a change to its name, flags or password (compared with the row
before the save: a login or a profile edit retires nothing), an account deleted. An entry of an older generation is a miss, looked up in Postgres.
When the new generation cannot be written (Redis away) that is logged; the entries expire within
``TOKEN_CACHE_SECONDS``. When Redis is away every key is looked up in Postgres (slower, never
refused).

A named token's ``last_used_at`` is written by the lookup in Postgres (at most once a minute,
``tokens.USED_EVERY``), so with the cache it lags by up to ``TOKEN_CACHE_SECONDS`` more.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import transaction

from tournaments.play import read_cache
from tournaments.play.read_cache import CACHE_DOWN

log = logging.getLogger(__name__)

VERSION = 1
"""Bump when what an entry holds changes shape."""
GENERATION = "tokens:generation"
"""The key of the current token generation (a random token; absent until the first bump)."""
KEPT = ("id", "username", "is_active", "is_staff", "is_superuser")
"""The account's columns an entry holds: what the API asks of its caller."""
ACCOUNT_CHANGES = frozenset({"password", *KEPT})
"""An account saved with one of these changed retires every entry: what an entry holds, and the
password (a new one may mean the account was in other hands: its callers are looked up afresh).
A login's ``last_login`` or a profile edit (an e-mail, a name) retires nothing, though a form
saves every column: the row before the save is compared (``row_changes``)."""


def seconds() -> float:
    return float(getattr(settings, "TOKEN_CACHE_SECONDS", 30.0))


def key_for(token: str) -> str:
    return f"tokens:{VERSION}:{hashlib.sha256(token.encode()).hexdigest()}"


def cached_user(token: str) -> tuple[str | None, Any]:
    """(the generation read, the account) for ``token``; the account is None on a miss.

    The generation is handed back so that what the caller then looks up in Postgres is stored
    under the generation read *before* it (a revocation committed in between retires it)."""
    if seconds() <= 0 or not read_cache.usable():
        return None, None
    key = key_for(token)
    found = read_cache.read_many([GENERATION, key], "token cache, looking the token up")
    if found is None:
        return None, None
    generation = found.get(GENERATION)
    entry = found.get(key)
    if entry is None or entry[0] != generation:
        return generation, None
    return generation, account(entry[1])


def account(kept: tuple[Any, ...]) -> Any:
    """The account an entry holds, as a row read with only ``KEPT``'s columns (any other is read
    from Postgres if asked). ``from_db`` takes the values in the model's column order, whatever
    the order of the names: they are put in that order here."""
    user_model = get_user_model()
    by_name = dict(zip(KEPT, kept, strict=True))
    names = [f.attname for f in user_model._meta.concrete_fields if f.attname in by_name]
    return user_model.from_db("default", names, [by_name[name] for name in names])


def keep(token: str, generation: str | None, user: Any) -> None:
    if seconds() <= 0 or not read_cache.usable():
        return
    try:
        cache.set(key_for(token), (generation, tuple(getattr(user, f) for f in KEPT)), seconds())
    except CACHE_DOWN as exc:
        log.warning("token cache unavailable, not keeping a token: %s", exc)


def bump() -> None:
    """A new token generation: every entry stored before is a miss from now on."""
    try:
        cache.set(GENERATION, secrets.token_hex(8), None)
    except CACHE_DOWN as exc:
        log.warning("token cache: no new generation (entries expire in %s s): %s", seconds(), exc)


def tokens_changed(**_: Any) -> None:
    """A new generation now, and again once the write commits (at once outside a transaction):
    now, so that the request after a revocation is refused even before the commit is seen by
    the signal (a test's transaction); again, so that an entry refilled from the row before the
    commit is retired too."""
    bump()
    transaction.on_commit(bump, robust=True)
