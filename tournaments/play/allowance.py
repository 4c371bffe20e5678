"""What one account may ask of the workers, checked at the door (challenges, forks, uploads).

* **Matches queued, running or waiting for a person**: at most ``FAIR_MAX_ACTIVE_MATCHES`` an
  account (its smoke matches included). A person's match waiting for a move counts: its
  deadline queues it again with the default played, so uncounted, one account's games with a
  scripted "person" were never refused (issue 21's outside review).
* **Versions being validated**: at most ``FAIR_MAX_PENDING_VERSIONS`` an account.
* **Worker time**: at most ``FAIR_WORKER_SECONDS_PER_HOUR`` seconds of workers in the last
  hour (worker_time.py), validations included. Once it is spent, new challenges, forks and
  uploads are refused until enough of the hour has passed; what was accepted before still
  plays, after the work of every account within its budget (scheduler.py).

Each also holds, ``FAIR_ADDRESS_FACTOR`` times over, for all the accounts signed up from one
address together (``AccountOrigin``): more accounts buy no more of the workers. A refusal is
:class:`OverLimit`, a 429 with a message and ``Retry-After`` (tournaments/site/api/exceptions.py).
Two requests of one account at once are counted one after the other (its user row is locked
until the caller's transaction ends); accounts of one address racing may overshoot by the
requests in flight.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone

from tournaments.play import worker_time
from tournaments.play.models import AccountOrigin, BotVersion, Match

ACTIVE = (Match.Status.QUEUED, Match.Status.RUNNING, Match.Status.WAITING)
RETRY_CAP_SECONDS = 30
"""Retry-After of a refusal for a full queue: about when one slow match may have finished."""


class OverLimit(Exception):
    """The account (or its address) has used its share: answered 429 with ``retry_after``."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.message, self.retry_after = message, max(1, retry_after)


def account_key(user: Any) -> str:
    return f"u:{user.pk}"


def origin_key(user: Any) -> str:
    """The address the account signed up from, or the account itself if none was recorded
    (accounts made by staff, or before addresses were kept)."""
    address = AccountOrigin.objects.filter(user_id=user.pk).values_list("address", flat=True)
    return f"a:{address[0]}" if address else account_key(user)


def _address_users(user: Any) -> Any:
    """The users signed up from the same address as ``user`` (None: no address recorded)."""
    address = AccountOrigin.objects.filter(user_id=user.pk).values_list("address", flat=True)
    if not address:
        return None
    return AccountOrigin.objects.filter(address=address[0]).values("user_id")


def _factor() -> int:
    return int(settings.FAIR_ADDRESS_FACTOR)


def _lock(user: Any) -> None:
    """Count this account's requests one at a time (inside the caller's transaction)."""
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()


_STANDING = """
WITH origin AS (SELECT address FROM tournaments_accountorigin WHERE user_id = %(uid)s)
SELECT
    (SELECT host(address) FROM origin),
    ({counted} AND {owner} = %(uid)s),
    CASE WHEN EXISTS (SELECT FROM origin) THEN ({counted} AND {owner} IN (
        SELECT user_id FROM tournaments_accountorigin WHERE address = (SELECT address FROM origin)
    )) END,
    (SELECT sum(seconds) FROM tournaments_workertime WHERE key = %(mine)s AND minute > %(since)s),
    (SELECT sum(seconds) FROM tournaments_workertime
     WHERE key = 'a:' || (SELECT host(address) FROM origin) AND minute > %(since)s)
"""
"""The caps' and the budget's figures of one account (``_standing``). ``host(address)`` is the
column as Postgres sends it to Django (an account's address is a single host, shown without
a mask), so ``a:<address>`` is ``origin_key``'s key."""
_COUNTED = {
    "matches": (
        "SELECT count(*) FROM tournaments_match WHERE status = ANY(%(statuses)s)",
        "created_by_id",
    ),
    "uploads": (
        "SELECT count(*) FROM tournaments_botversion v JOIN tournaments_bot b ON b.id = v.bot_id"
        " WHERE v.status = ANY(%(statuses)s)",
        "b.owner_id",
    ),
}
"""What a cap counts: an account's active matches, or its versions being validated."""


class _Standing(NamedTuple):
    """An account's share in use, read in one query (``_standing``)."""

    address: str | None
    """The address it signed up from (None: none recorded)."""
    mine: int
    """Its own matches active, or versions being validated."""
    shared: int | None
    """Those of every account of its address (None: no address)."""
    used: dict[str, float]
    """Worker seconds in the last hour of its key and its address's key (absent: none)."""


def _standing(user: Any, counted: str, statuses: list[str]) -> _Standing:
    """What the caps and the hourly budget of ``user`` have in use: one round trip, after the
    account's lock (``_lock``), so that a request of the same account waiting on the lock
    counts what the one before it made."""
    count, owner = _COUNTED[counted]
    sql = _STANDING.format(counted=count, owner=owner)
    mine_key = account_key(user)
    args = {
        "uid": user.pk,
        "statuses": statuses,
        "mine": mine_key,
        "since": timezone.now() - worker_time.WINDOW,
    }
    with connection.cursor() as cur:
        cur.execute(sql, args)
        address, mine, shared, mine_seconds, origin_seconds = cur.fetchone()
    used = {mine_key: mine_seconds}
    if address is not None:
        used[f"a:{address}"] = origin_seconds
    spent = {key: float(seconds) for key, seconds in used.items() if seconds is not None}
    return _Standing(address, int(mine), None if shared is None else int(shared), spent)


def check_matches(user: Any) -> None:
    """Raise OverLimit unless ``user`` may queue one more match now."""
    _lock(user)
    standing = _standing(user, "matches", list(ACTIVE))
    cap = int(settings.FAIR_MAX_ACTIVE_MATCHES)
    active = standing.mine
    if active >= cap:
        raise OverLimit(
            f"{active} of your matches are queued, running or waiting for a move, the most one"
            " account may have at once (smoke matches of your uploads count too); wait for one"
            " to finish",
            RETRY_CAP_SECONDS,
        )
    if standing.shared is not None:
        shared = standing.shared
        if shared >= cap * _factor():
            raise OverLimit(
                f"{shared} matches of the accounts signed up from your address are queued,"
                f" running or waiting for a move, the most they may have together"
                f" ({cap * _factor()}); wait for one to finish",
                RETRY_CAP_SECONDS,
            )
    _check_spent(user, standing)


def room(user: Any) -> int:
    """How many more matches ``user`` may queue now without a refusal from ``check_matches``
    (a series' progressive creation asks this instead of being refused)."""
    try:
        check_budget(user)
    except OverLimit:
        return 0
    cap = int(settings.FAIR_MAX_ACTIVE_MATCHES)
    free = cap - Match.objects.filter(created_by_id=user.pk, status__in=ACTIVE).count()
    same_address = _address_users(user)
    if same_address is not None:
        shared = Match.objects.filter(created_by_id__in=same_address, status__in=ACTIVE).count()
        free = min(free, cap * _factor() - shared)
    return max(0, free)


def check_uploads(user: Any) -> None:
    """Raise OverLimit unless ``user`` may have one more version validated now."""
    _lock(user)
    standing = _standing(user, "uploads", [BotVersion.Status.PENDING])
    cap = int(settings.FAIR_MAX_PENDING_VERSIONS)
    waiting = standing.mine
    if waiting >= cap:
        raise OverLimit(
            f"{waiting} of your uploads are still being validated, the most one account may"
            " have at once; wait for their results",
            RETRY_CAP_SECONDS,
        )
    if standing.shared is not None:
        shared = standing.shared
        if shared >= cap * _factor():
            raise OverLimit(
                f"{shared} uploads of the accounts signed up from your address are still being"
                f" validated, the most they may have together ({cap * _factor()}); wait for"
                " their results",
                RETRY_CAP_SECONDS,
            )
    _check_spent(user, standing)


def check_budget(user: Any) -> None:
    """Raise OverLimit if the account (or its address) has spent its hour of worker time."""
    mine, origin = account_key(user), origin_key(user)
    _check_budget(mine, origin, worker_time.used([mine, origin]))


def _check_spent(user: Any, standing: _Standing) -> None:
    mine = account_key(user)
    origin = mine if standing.address is None else f"a:{standing.address}"
    _check_budget(mine, origin, standing.used)


def _check_budget(mine: str, origin: str, used: dict[str, float]) -> None:
    budget = float(settings.FAIR_WORKER_SECONDS_PER_HOUR)
    limits = [(mine, budget, "your account")]
    if origin != mine:
        limits.append((origin, budget * _factor(), "the accounts signed up from your address"))
    for key, allowed, whose in limits:
        spent = used.get(key, 0.0)
        if spent >= allowed:
            raise OverLimit(
                f"{whose} used {spent:.0f} s of the workers' time in the last hour, the most"
                f" allowed is {allowed:.0f} s (matches and validations of uploads count);"
                " new challenges, forks and uploads are refused until part of it is an hour"
                " old, and what is queued already is played after other accounts' work",
                _frees_in(key),
            )


def _frees_in(key: str) -> int:
    """Seconds until the oldest minute of ``key``'s last hour leaves the window."""
    oldest = worker_time.oldest_minute(key)
    if oldest is None:
        return 60
    left = (oldest + worker_time.WINDOW - timezone.now()).total_seconds() + 60
    return max(1, math.ceil(left))
