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
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
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


def check_matches(user: Any) -> None:
    """Raise OverLimit unless ``user`` may queue one more match now."""
    _lock(user)
    cap = int(settings.FAIR_MAX_ACTIVE_MATCHES)
    active = Match.objects.filter(created_by_id=user.pk, status__in=ACTIVE).count()
    if active >= cap:
        raise OverLimit(
            f"{active} of your matches are queued, running or waiting for a move, the most one"
            " account may have at once (smoke matches of your uploads count too); wait for one"
            " to finish",
            RETRY_CAP_SECONDS,
        )
    same_address = _address_users(user)
    if same_address is not None:
        shared = Match.objects.filter(created_by_id__in=same_address, status__in=ACTIVE).count()
        if shared >= cap * _factor():
            raise OverLimit(
                f"{shared} matches of the accounts signed up from your address are queued,"
                f" running or waiting for a move, the most they may have together"
                f" ({cap * _factor()}); wait for one to finish",
                RETRY_CAP_SECONDS,
            )
    check_budget(user)


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
    cap = int(settings.FAIR_MAX_PENDING_VERSIONS)
    pending = BotVersion.objects.filter(bot__owner_id=user.pk, status=BotVersion.Status.PENDING)
    waiting = pending.count()
    if waiting >= cap:
        raise OverLimit(
            f"{waiting} of your uploads are still being validated, the most one account may"
            " have at once; wait for their results",
            RETRY_CAP_SECONDS,
        )
    same_address = _address_users(user)
    if same_address is not None:
        shared = BotVersion.objects.filter(
            bot__owner_id__in=same_address, status=BotVersion.Status.PENDING
        ).count()
        if shared >= cap * _factor():
            raise OverLimit(
                f"{shared} uploads of the accounts signed up from your address are still being"
                f" validated, the most they may have together ({cap * _factor()}); wait for"
                " their results",
                RETRY_CAP_SECONDS,
            )
    check_budget(user)


def check_budget(user: Any) -> None:
    """Raise OverLimit if the account (or its address) has spent its hour of worker time."""
    budget = float(settings.FAIR_WORKER_SECONDS_PER_HOUR)
    mine, origin = account_key(user), origin_key(user)
    used = worker_time.used([mine, origin])
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
