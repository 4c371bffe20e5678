"""``GET /health/``: whether this web process reaches its database, and its replica's lag.

Cheap and open (no login, nothing secret): one ``SELECT 1`` on the primary, and the replica's
state from the last lag check (config/replica.py: at most one check a second per process, so a
load balancer polling this costs the replica nothing more). 200 while the primary answers, 503
when it does not; a lagging or unreachable replica is still a 200 (the primary serves meanwhile),
shown in ``replica`` and ``reads``.
"""

from __future__ import annotations

from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from config import replica


@never_cache
@require_safe
def health(request: HttpRequest) -> JsonResponse:
    try:
        with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError:
        return JsonResponse({"database": "unavailable", **_replica()}, status=503)
    return JsonResponse({"database": "ok", **_replica()})


def _replica() -> dict[str, object]:
    return replica.state().as_json()
